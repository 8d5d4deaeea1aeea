import Courier
import Foundation

/// `courier post [OPTIONS] URL`: sends a form (`-F`) or a body (`--data`, `--data-binary`) and
/// writes the response body to standard output (or `-o FILE`) as it arrives. The upload's
/// progress bar and a status line go to standard error.
@MainActor
struct PostCommand {
    let url: URL
    var options: PostOptions

    func run() -> Never {
        var options = options
        let request: HTTPRequest
        do throws(UsageError) {
            try options.request.prepareRun(command: "post")
            request = try Self.makeRequest(url: url, options: options)
        } catch {
            Console.error("courier: \(error.message)")
            Console.error(error.pointer)
            exit(HelpText.usageExitStatus)
        }
        let output: BodyOutput
        if let outputFile = options.outputFile {
            let descriptor = open(outputFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else {
                Console.error("courier: cannot write \(outputFile): \(String(cString: strerror(errno)))")
                exit(1)
            }
            output = BodyOutput(descriptor: descriptor)
        } else {
            output = .standardOutput
        }
        let display = options.request.drawsProgress ? ProgressDisplay() : nil
        request.uploadProgressDelegate = display?.bar
        request.callbackQueue = .main
        // The response body is written as it arrives, inflated: a large one is never held whole.
        request.shouldWaitToInflateCompressedResponses = false
        let written = WriteOutcome()
        request.setDataReceivedBlock { request, data in
            MainActor.assumeIsolated {
                guard written.failure == nil else { return }
                do throws(BodyOutput.Failure) {
                    try output.write(data)
                } catch {
                    // The rest would go nowhere: stop receiving it, and fail.
                    written.failure = error
                    request.cancel()
                }
            }
        }
        let startedAt = Date()
        let finish: @Sendable (HTTPRequest) -> Void = { request in
            MainActor.assumeIsolated {
                display?.finish()
                if options.outputFile != nil, written.failure == nil {
                    do throws(BodyOutput.Failure) { try output.close() } catch { written.failure = error }
                }
                var status = Self.statusLine(of: request, seconds: Date().timeIntervalSince(startedAt))
                if let lostBody = written.failure {
                    let target =
                        "\(request.requestMethod) \(CredentialMask.url((request.originalURL ?? url).absoluteString))"
                    status = "FAIL \(target): the response body was not written: \(lostBody)"
                }
                let failed = request.error != nil || request.responseStatusCode >= 400 || written.failure != nil
                if !options.request.isQuiet || failed { Console.error(status) }
                exit(failed ? 1 : 0)
            }
        }
        request.setCompletionBlock(finish)
        request.setFailedBlock(finish)
        InterruptHandler.install {
            display?.clear()
            Console.error("interrupted: \(request.requestMethod) \(CredentialMask.url(url.absoluteString))")
            exit(InterruptHandler.exitStatus)
        }
        request.startAsynchronous()
        withExtendedLifetime(request) { dispatchMain() }
    }

    /// Why the response body could not be written, once a write failed.
    @MainActor
    private final class WriteOutcome {
        var failure: BodyOutput.Failure?
    }

    /// The request `options` describe, its body checked before anything is sent.
    static func makeRequest(url: URL, options: PostOptions) throws(UsageError) -> HTTPRequest {
        let request: HTTPRequest
        if !options.formParts.isEmpty {
            for case .file(_, let path, _, _) in options.formParts
            where !FileManager.default.isReadableFile(atPath: path) {
                throw UsageError("-F: cannot read \(path)", command: "post")
            }
            request = FormRequestBuilder.request(url: url, parts: options.formParts)
        } else {
            request = HTTPRequest(url: url)
            try PostBody.apply(options.dataParts, to: request)
        }
        request.requestMethod = options.method ?? "POST"
        options.request.configure(request)
        return request
    }

    /// "POST http://host/form: 201 Created, 1234 bytes sent, 56 received in 0.012 s".
    static func statusLine(of request: HTTPRequest, seconds: Double) -> String {
        let url = request.originalURL ?? request.url
        let target = "\(request.requestMethod) \(CredentialMask.url(url.absoluteString))"
        if let error = request.error, request.responseStatusCode == 0 {
            return "FAIL \(target): \(ReportFormatter.reason(for: error))"
        }
        let status = ReportFormatter.reason(
            forStatus: request.responseStatusCode, statusLine: request.responseStatusMessage)
        let figures =
            "\(status), \(request.totalBytesSent) bytes sent, \(request.totalBytesRead) received in "
            + String(format: "%.3f s", seconds)
        if let error = request.error { return "FAIL \(target): \(figures): \(ReportFormatter.reason(for: error))" }
        return "\(request.responseStatusCode < 400 ? "ok  " : "err ") \(target): \(figures)"
    }
}
