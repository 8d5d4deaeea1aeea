import Foundation

/// `courier get [-o DIR] [-j N] [--no-progress] URL...`: fetches every URL, at most N at a
/// time, saves each body in DIR, prints a line per result and a summary, and exits 0 only if
/// every response was saved. A progress bar goes to standard error unless `--no-progress`.
@MainActor
struct GetCommand {
    let urls: [URL]
    let options: FetchOptions

    /// Runs the batch on the main queue and exits the process when it is done.
    func run() -> Never {
        let displayDirectory = options.outputDirectory ?? "."
        let directory: URL
        do {
            directory = try OutputFileWriter.prepareDirectory(atPath: displayDirectory)
        } catch {
            Console.error("courier: cannot save into \(displayDirectory): \(error)")
            exit(1)
        }
        let batch = DownloadBatch(
            jobs: urls.map { FetchJob(url: $0) },
            writer: OutputFileWriter(directory: directory, displayDirectory: displayDirectory),
            maxConcurrentRequests: options.maxConcurrentRequests, showsProgress: options.showsProgress)
        batch.start { summary in
            for line in ReportFormatter.summaryLines(for: summary) { Console.out(line) }
            exit(summary.exitStatus)
        }
        // Every request calls back on the main queue; this serves it until `exit`. The queue holds
        // its delegate weakly, so the batch is kept alive here until then.
        withExtendedLifetime(batch) { dispatchMain() }
    }
}
