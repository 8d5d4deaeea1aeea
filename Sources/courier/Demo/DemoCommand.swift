import CourierTestServer
import Foundation

/// `courier demo [-o DIR] [-j N] [--no-progress]`: starts a `TestServer` in this process on
/// 127.0.0.1, downloads a mixed batch from it through `get`'s code path (one `NetworkQueue`
/// with the bar), and verifies every byte.
@MainActor
struct DemoCommand {
    /// How long the stalled download waits before its try times out and is resumed.
    static let stallTimeout = 1.5

    let options: DemoOptions

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
        let isTemporary = options.outputDirectory == nil
        let displayDirectory: String
        let folder: OutputFolder
        let uploadFile: String
        let upload = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        do {
            displayDirectory = try options.outputDirectory ?? Self.makeTemporaryDirectory()
            folder = try OutputFolder(path: displayDirectory, overwrites: false)
            uploadFile = try Self.makeTemporaryDirectory() + "/upload.bin"
            try upload.write(to: URL(fileURLWithPath: uploadFile))
        } catch {
            Console.error("courier: cannot create the demo's files: \(error)")
            exit(1)
        }
        let items = DemoItem.batch(on: server, uploadFile: uploadFile, upload: upload, resumeKey: UUID().uuidString)
        Console.out(
            "fetching \(items.count) requests, at most \(options.jobs) at a time, into \(displayDirectory): "
                + items.map(\.title).joined(separator: ", "))
        var getOptions = GetOptions()
        getOptions.jobs = options.jobs
        getOptions.request.showsProgress = options.showsProgress
        // The stalled download times out, and its retry resumes the .part file with a Range.
        getOptions.request.timeoutSeconds = Self.stallTimeout
        getOptions.retries = 2
        let batch = DownloadBatch(jobs: items.map(\.job), options: getOptions, destination: .folder(folder))
        batch.start { summary in
            batch.reporter.summarize(summary)
            let verification = DemoVerifier.verify(summary, items: items)
            for line in verification.lines { Console.out(line) }
            try? FileManager.default.removeItem(atPath: (uploadFile as NSString).deletingLastPathComponent)
            if isTemporary {
                try? FileManager.default.removeItem(atPath: displayDirectory)
                Console.out("removed \(displayDirectory)")
            }
            server.stop()
            exit(verification.allVerified ? 0 : 1)
        }
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
