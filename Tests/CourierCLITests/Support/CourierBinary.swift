import Foundation

/// Runs the built `courier` executable (or `courier-bench`) as a child process, as a user would.
enum CourierBinary {
    /// Why the binary could not be run to the end.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The executable SwiftPM built next to this test bundle: on Linux the xctest bundle is a
    /// file in `.build/<config>/`, on macOS a directory there, so look in the bundle's directory
    /// and its parent.
    static func url(_ name: String = "courier") throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        let searched = [
            bundle.deletingLastPathComponent(),
            bundle.deletingLastPathComponent().deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ]
        for directory in searched {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Failure(
            description: "no \(name) executable in \(searched.map(\.path)); "
                + "the test target must depend on the \(name) target so SwiftPM builds it")
    }

    /// Runs `courier` with `arguments` and waits at most `timeout` seconds: a hang kills the
    /// child and throws, so it fails the test instead of blocking the run. With
    /// `closingStandardError`, courier starts with descriptor 2 closed, as after `2>&-` (its
    /// `standardError` is then empty).
    static func run(
        _ arguments: [String], in directory: URL? = nil, closingStandardError: Bool = false,
        timeout: TimeInterval = 30, executable: String = "courier"
    ) throws -> CLIRun {
        // Output goes to files, not pipes: a child that writes more than a pipe holds cannot
        // block on a reader that is busy waiting for it to exit.
        let scratch = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let errorURL = scratch.appendingPathComponent("stderr")
        let output = try makeFile(at: outputURL)
        let error = try makeFile(at: errorURL)
        defer {
            try? output.close()
            try? error.close()
        }
        let status = try launch(
            arguments, executable: executable, in: directory, standardOutput: output, standardError: error,
            closingStandardError: closingStandardError, timeout: timeout,
            partialOutput: { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" })
        return CLIRun(
            status: status,
            standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            standardError: try String(contentsOf: errorURL, encoding: .utf8))
    }

    /// Runs `courier` with its standard error on a new pseudo-terminal `columns` wide, as in a
    /// terminal window, and standard output to a file, or to the terminal as well when
    /// `outputOnTerminal` is true; waits at most `timeout` seconds, as `run` does.
    static func runOnTerminal(
        _ arguments: [String], columns: UInt16 = 100, outputOnTerminal: Bool = false, in directory: URL? = nil,
        timeout: TimeInterval = 30
    ) throws -> TerminalRun {
        let scratch = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outputURL = scratch.appendingPathComponent("stdout")
        let output = try makeFile(at: outputURL)
        defer { try? output.close() }
        let terminal = try PseudoTerminal(columns: columns)
        terminal.startReading()
        // However this ends, the reader must see the last slave close, or it reads forever.
        defer { terminal.closeSlave() }
        let status = try launch(
            arguments, in: directory, standardOutput: outputOnTerminal ? terminal.slaveHandle : output,
            standardError: terminal.slaveHandle, timeout: timeout,
            afterStart: terminal.closeSlave,
            partialOutput: { String(decoding: terminal.partialOutput, as: UTF8.self) })
        // The child has exited, so its copies of the slave are closed: the reader ends at once
        // unless the exit left something holding the terminal open.
        guard let drawn = terminal.output(waitingUpTo: 10) else {
            throw Failure(description: "the terminal was not closed 10 s after courier exited")
        }
        return TerminalRun(
            status: status, standardOutput: try String(contentsOf: outputURL, encoding: .utf8),
            terminal: String(decoding: drawn, as: UTF8.self))
    }

    /// Starts `courier` and waits for it to exit; kills it and throws after `timeout` seconds.
    /// `afterStart` runs once the child has its copies of the handles.
    private static func launch(
        _ arguments: [String], executable: String = "courier", in directory: URL?, standardOutput: FileHandle, standardError: FileHandle,
        closingStandardError: Bool = false, timeout: TimeInterval, afterStart: () -> Void = {},
        partialOutput: () -> String
    ) throws -> Int32 {
        let process = Process()
        if closingStandardError {
            // Process cannot start a child with a descriptor closed; the shell can, and then
            // becomes courier.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"exec "$0" "$@" 2>&-"#, try url(executable).path] + arguments
        } else {
            process.executableURL = try url(executable)
            process.arguments = arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        // Never the test's own: nothing may wait for input that will not come.
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = standardOutput
        process.standardError = standardError
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        afterStart()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            throw Failure(
                description: "\(executable) \(arguments.joined(separator: " ")) did not exit within \(timeout) s; "
                    + "its output so far:\n\(partialOutput())")
        }
        return process.terminationStatus
    }

    private static func makeScratchDirectory() throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        return scratch
    }

    /// A new empty file at `url`, open for writing.
    private static func makeFile(at url: URL) throws -> FileHandle {
        try Data().write(to: url)
        return try FileHandle(forWritingTo: url)
    }
}
