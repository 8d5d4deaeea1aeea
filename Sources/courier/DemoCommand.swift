import CourierTestServer
import Foundation

/// `courier demo [-o DIR] [-j N] [--no-progress]`: starts a `TestServer` in this process on
/// 127.0.0.1, fetches files of several sizes and a POST from it through `get`'s code path, and
/// verifies every byte.
@MainActor
struct DemoCommand {
    /// What the demo fetches: fixed-length bodies from 1 KiB to 10 MiB and a chunked one.
    static let routes: [Route] = [
        .bytes(1024), .bytes(65_536), .bytes(1_048_576), .bytes(10_485_760), .chunked(100_000),
    ]

    /// The body the demo posts to the echo route.
    static let postBody = Data("Hello from courier demo: this body goes to /echo and comes back.".utf8)

    let options: FetchOptions

    /// Runs the demo on the main queue and exits the process when it is done.
    func run() -> Never {
        let server: TestServer
        do {
            server = try TestServer()
        } catch {
            Console.error("courier: the test server could not start: \(error)")
            exit(1)
        }
        Console.out("TestServer listening on \(server.baseURL.absoluteString)")

        let displayDirectory: String
        let isTemporary = options.outputDirectory == nil
        let directory: URL
        do {
            if let outputDirectory = options.outputDirectory {
                displayDirectory = outputDirectory
            } else {
                displayDirectory = try Self.makeTemporaryDirectory()
            }
            directory = try OutputFileWriter.prepareDirectory(atPath: displayDirectory)
        } catch {
            Console.error("courier: cannot create the output directory: \(error)")
            exit(1)
        }

        let jobs =
            Self.routes.map { FetchJob(url: server.url($0)) } + [FetchJob(url: server.url(.echo), body: Self.postBody)]
        let limit = options.maxConcurrentRequests
        Console.out("fetching \(jobs.count) requests, at most \(limit) at a time, into \(displayDirectory)")
        let batch = DownloadBatch(
            jobs: jobs,
            writer: OutputFileWriter(directory: directory, displayDirectory: displayDirectory),
            maxConcurrentRequests: options.maxConcurrentRequests, showsProgress: options.showsProgress)
        batch.start { summary in
            for line in ReportFormatter.summaryLines(for: summary) { Console.out(line) }
            let verification = DemoVerifier.verify(summary)
            for line in verification.lines { Console.out(line) }
            if isTemporary {
                try? FileManager.default.removeItem(at: directory)
                Console.out("removed \(displayDirectory)")
            }
            server.stop()
            exit(verification.allVerified ? 0 : 1)
        }
        // As in `get`: the queue holds its delegate weakly, so the batch is kept alive here.
        withExtendedLifetime(batch) { dispatchMain() }
    }

    /// Makes a fresh directory, only this user's, under the system's temporary directory.
    private static func makeTemporaryDirectory() throws -> String {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-XXXXXX").path
        var buffer = Array(template.utf8CString)
        // mkdtemp(3) picks the name and creates the directory (mode 0700) in one step.
        guard let path = mkdtemp(&buffer) else {
            throw SaveError(description: "cannot create \(template): \(String(cString: strerror(errno)))")
        }
        return String(cString: path)
    }
}
