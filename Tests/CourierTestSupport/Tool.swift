import Foundation

/// Runs a program (gzip, curl, md5sum, openssl…) to its end, with a deadline: a program that
/// hangs is stopped and the run throws, so that the test fails instead of blocking the suite.
public enum Tool {
    /// What the program left behind.
    public struct Run: Sendable {
        public var status: Int32
        /// False when a signal ended it.
        public var exited: Bool
        /// Its standard output, followed by its standard error when `errorsToOutput` was set.
        public var output: Data

        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// The program did not exit in time.
    public struct TimedOut: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs `executable` with `arguments` (in `directory`, if given), its standard input empty,
    /// and waits at most `timeout` seconds for it to exit. Its standard output goes to a file,
    /// not a pipe: a pipe that nobody drains while we wait would block a chatty program. Its
    /// standard error goes there too with `errorsToOutput`, else nowhere.
    /// - Throws: ``TimedOut`` when it is still running after `timeout` seconds (it is killed).
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, errorsToOutput: Bool = false,
        timeout: TimeInterval = 60
    ) throws -> Run {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let handle = try FileHandle(forWritingTo: outputURL)
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = errorsToOutput ? handle : FileHandle.nullDevice
        try process.run()
        guard waitForExit(process, timeout: timeout) else {
            let command = ([executable.path] + arguments).joined(separator: " ")
            let partial = String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self)
            throw TimedOut(description: "\(command) did not exit within \(timeout) s; its output so far:\n\(partial)")
        }
        return Run(
            status: process.terminationStatus, exited: process.terminationReason == .exit,
            output: try Data(contentsOf: outputURL))
    }

    /// Waits at most `timeout` seconds for `process` to exit. If it is still running then, it
    /// gets SIGTERM and, `grace` seconds later, SIGKILL (which it cannot ignore), and this waits
    /// for that; returns false in that case.
    public static func waitForExit(_ process: Process, timeout: TimeInterval, grace: TimeInterval = 2) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        guard process.isRunning else { return true }
        process.terminate()
        let killAt = Date(timeIntervalSinceNow: grace)
        while process.isRunning, Date() < killAt { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return false
    }
}
