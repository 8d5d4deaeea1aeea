import Foundation

/// A server process the interop tests started: nginx or gunicorn.
///
/// `@unchecked Sendable`: `process` is only started in `init`; afterwards it is only signalled
/// and polled, which Foundation's `Process` allows from any thread.
final class ChildServer: @unchecked Sendable {
    /// A name for messages ("nginx", "gunicorn").
    let name: String
    /// Where its standard output and error go.
    let logURL: URL
    /// Another log worth showing when it fails (nginx's error log), if any.
    let errorLogURL: URL?
    /// The signal that stops it quickly: nginx's fast shutdown is SIGTERM, gunicorn's is SIGINT.
    let stopSignal: Int32
    private let process = Process()

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments` in `directory`, with `environment` (nil: this
    /// process's own).
    init(
        name: String, executable: URL, arguments: [String], directory: URL, errorLogURL: URL? = nil,
        stopSignal: Int32, environment: [String: String]? = nil
    ) throws {
        self.name = name
        self.errorLogURL = errorLogURL
        self.stopSignal = stopSignal
        logURL = directory.appendingPathComponent("\(name).out")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: logURL)
        defer { try? handle.close() }
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Waits until every port in `ports` accepts connections.
    /// - Throws: ``InteropServersError/serverDidNotStart(_:reason:log:)`` when the process exits
    ///   first or `timeout` passes; the process is stopped then.
    func waitUntilAccepting(_ ports: [Int], timeout: TimeInterval = 15) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !ports.allSatisfy(LoopbackPort.accepts) {
            guard process.isRunning else {
                throw InteropServersError.serverDidNotStart(
                    name, reason: "it exited with status \(process.terminationStatus)", log: logTail())
            }
            guard Date() < deadline else {
                stop()
                throw InteropServersError.serverDidNotStart(
                    name, reason: "ports \(ports) not accepting after \(Int(timeout)) s", log: logTail())
            }
            usleep(20_000)
        }
    }

    /// Stops the process: `stopSignal`, then SIGKILL if it is still running after `grace` seconds.
    func stop(grace: TimeInterval = 5) {
        guard process.isRunning else { return }
        kill(pid, stopSignal)
        let deadline = Date(timeIntervalSinceNow: grace)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// The last lines of what the server logged, for failure messages.
    func logTail(lines: Int = 20) -> String {
        [logURL, errorLogURL].compactMap { $0 }.compactMap { url in
            guard let text = try? String(contentsOf: url, encoding: .utf8), !text.isEmpty else { return nil }
            let tail = text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines)
            return "--- \(url.lastPathComponent)\n" + tail.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
