import Courier
import Foundation

/// `courier page [OPTIONS] URL`: saves a web page with everything it needs to display, for
/// offline reading, through one WebPageRequest: beside it in `NAME_files/` (wget -p -k), or
/// inlined into one file with `--single-file` (monolith). `courier get`'s bar and exit statuses:
/// 0 saved, 1 failed, 2 a usage error, 130 interrupted.
@MainActor
struct PageCommand {
    let url: URL
    var options: PageOptions

    /// Runs the page on the main queue and exits the process when it is done.
    func run() -> Never {
        var options = options
        let destination: PageDestination
        do throws(UsageError) {
            try options.request.prepareRun(command: "page")
            do {
                destination = try PageDestination(url: url, output: options.output, isSingleFile: options.isSingleFile)
            } catch {
                throw UsageError("cannot save into \(options.output ?? "."): \(error)", command: "page")
            }
        } catch {
            Console.error("courier: \(error.message)")
            Console.error(error.pointer)
            exit(HelpText.usageExitStatus)
        }
        let page = WebPageRequest(url: url)
        options.configure(page)
        page.downloadDestinationPath = destination.stagingPath
        page.callbackQueue = .main
        let watcher = PageResourceWatcher()
        watcher.page = page
        page.delegate = watcher
        let display = options.request.drawsProgress ? ProgressDisplay() : nil
        page.downloadProgressDelegate = display?.bar
        let interruption = Interruption()
        let startedAt = Date()
        let configured = options
        let finish: @Sendable (HTTPRequest) -> Void = { request in
            MainActor.assumeIsolated {
                if interruption.isInterrupted {
                    destination.discard()
                    exit(InterruptHandler.exitStatus)
                }
                let status = Self.finish(
                    request, at: destination, watcher: watcher, options: configured,
                    seconds: Date().timeIntervalSince(startedAt), display: display)
                exit(status)
            }
        }
        page.setCompletionBlock(finish)
        page.setFailedBlock(finish)
        // Cancelling the page cancels its resources; its failure then comes through `finish`,
        // which removes what was staged, so nothing half-written is left.
        InterruptHandler.installFinishing {
            interruption.isInterrupted = true
            display?.clear()
            Console.error("interrupted: \(CredentialMask.url(url.absoluteString)) (nothing saved)")
            page.cancel()
        }
        page.startAsynchronous()
        withExtendedLifetime((page, watcher)) { dispatchMain() }
    }

    /// Whether Ctrl-C stopped the page, so that its failure exits 130.
    @MainActor
    private final class Interruption {
        var isInterrupted = false
    }

    /// Moves the saved page into place, or removes it, and prints the result: the result line on
    /// standard output (unless `-q`), the failures on standard error. Returns the exit status.
    static func finish(
        _ page: HTTPRequest, at destination: PageDestination, watcher: PageResourceWatcher, options: PageOptions,
        seconds: Double, display: ProgressDisplay?
    ) -> Int32 {
        let target = CredentialMask.url(url(of: page).absoluteString)
        var failure: String?
        if let error = page.error {
            failure = "FAIL \(target): \(ReportFormatter.reason(for: error))"
        } else if page.responseStatusCode >= 400 {
            let reason = ReportFormatter.reason(
                forStatus: page.responseStatusCode, statusLine: page.responseStatusMessage)
            failure = "err  \(target): \(reason) (not saved)"
        }
        var resourcesFolder: String?
        if failure == nil {
            do {
                resourcesFolder = try destination.commit()
            } catch {
                failure = "FAIL \(target): \(error)"
            }
        }
        // A failure's bar would end at 100% of a page that was not saved: it goes instead.
        if failure == nil { display?.finish() } else { display?.clear() }
        if let failure {
            destination.discard()
            Console.error(failure)
            for line in watcher.failures { Console.error("resource failed: " + line) }
            return 1
        }
        if !options.request.isQuiet {
            Console.out(
                resultLine(
                    target, status: page.responseStatusCode, path: destination.path, resourcesFolder: resourcesFolder,
                    watcher: watcher, isSingleFile: options.isSingleFile, bytes: page.responseData()?.count ?? 0,
                    seconds: seconds))
        }
        for line in watcher.failures { Console.error("resource not saved, its web URL kept: " + line) }
        if let lost = Console.outputFailure {
            Console.error("courier: the result line was not written to standard output: \(lost)")
            return 1
        }
        return 0
    }

    /// "ok   200 URL -> out/index.html, 3 resources in out/index_files/ (1 failed), 12345 B in
    /// 0.042 s": what was saved where.
    static func resultLine(
        _ target: String, status: Int, path: String, resourcesFolder: String?, watcher: PageResourceWatcher,
        isSingleFile: Bool, bytes: Int, seconds: Double
    ) -> String {
        let count = watcher.savedCount
        let resources = "\(count) resource\(count == 1 ? "" : "s")"
        var line = "ok   \(status) \(target) -> \(path), "
        if isSingleFile {
            line += "\(resources) inlined"
        } else if let resourcesFolder {
            line += "\(resources) in \(resourcesFolder)/"
        } else {
            line += resources
        }
        if !watcher.failures.isEmpty { line += " (\(watcher.failures.count) failed)" }
        return line + ", \(bytes) B in " + String(format: "%.3f s", seconds)
    }

    private static func url(of request: HTTPRequest) -> URL {
        request.originalURL ?? request.url
    }
}
