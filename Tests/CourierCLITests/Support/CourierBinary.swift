import Foundation

/// Runs the built `courier` executable as a child process, as a user would.
enum CourierBinary {
    /// Why the binary could not be run to the end.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The `courier` executable SwiftPM built next to this test bundle: on Linux the xctest
    /// bundle is a file in `.build/<config>/`, on macOS a directory there, so look in the
    /// bundle's directory and its parent.
    static func url() throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        let searched = [
            bundle.deletingLastPathComponent(),
            bundle.deletingLastPathComponent().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in searched {
            let candidate = directory.appendingPathComponent("courier")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Failure(
            description: "no courier executable in \(searched.map(\.path)); "
                + "the test target must depend on the courier target so SwiftPM builds it")
    }

    /// Runs `courier` with `arguments` and waits at most `timeout` seconds: a hang kills the
    /// child and throws, so it fails the test instead of blocking the run.
    static func run(
        _ arguments: [String], in directory: URL? = nil, timeout: TimeInterval = 30
    ) throws -> CLIRun {
        // Output goes to files, not pipes: a child that writes more than a pipe holds cannot
        // block on a reader that is busy waiting for it to exit.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        let output = try FileHandle(forWritingTo: outputURL)
        let error = try FileHandle(forWritingTo: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }

        let process = Process()
        process.executableURL = try url()
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = error
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            let partial = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
            throw Failure(
                description: "courier \(arguments.joined(separator: " ")) did not exit within \(timeout) s; "
                    + "its output so far:\n\(partial)")
        }
        return CLIRun(
            status: process.terminationStatus,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }
}
