import Foundation

/// Runs the built `courier` executable (or `courier-bench`, or an example) as a child process,
/// as a user would.
public enum CourierBinary {
    /// Why the binary could not be run to the end.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// What else a run needs, beyond its arguments.
    public struct Launch {
        /// The working directory (nil: the test's).
        public var directory: URL?
        /// What the child reads on standard input (nil: /dev/null, so nothing waits for input).
        public var standardInput: Data?
        /// Variables added to (or replacing) the test's environment.
        public var environment: [String: String] = [:]
        /// Called on a background thread with the child's pid once it runs, while the test waits
        /// for it (to signal it, say); the child may have exited by then.
        public var whileRunning: (@Sendable (pid_t) -> Void)?
        /// Start with descriptor 2 closed, as after `2>&-` (`standardError` is then empty).
        public var closingStandardError = false
        /// Kill the child and throw after this many seconds.
        public var timeout: TimeInterval = 30

        public init(
            directory: URL? = nil, standardInput: Data? = nil, environment: [String: String] = [:],
            timeout: TimeInterval = 30, whileRunning: (@Sendable (pid_t) -> Void)? = nil
        ) {
            self.directory = directory
            self.standardInput = standardInput
            self.environment = environment
            self.timeout = timeout
            self.whileRunning = whileRunning
        }
    }

    /// The executable SwiftPM built next to this test bundle: on Linux the xctest bundle is a
    /// file in `.build/<config>/`, on macOS a directory there, so look in the bundle's directory
    /// and its parent.
    public static func url(_ name: String = "courier") throws -> URL {
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
    /// `closingStandardError`, courier starts with descriptor 2 closed, as after `2>&-`.
    public static func run(
        _ arguments: [String], in directory: URL? = nil, closingStandardError: Bool = false,
        timeout: TimeInterval = 30, executable: String = "courier"
    ) throws -> CLIRun {
        var launch = Launch(directory: directory, timeout: timeout)
        launch.closingStandardError = closingStandardError
        return try run(arguments, launch, executable: executable)
    }

    /// Runs `courier` with `arguments` as `launch` says.
    public static func run(_ arguments: [String], _ launch: Launch, executable: String = "courier") throws -> CLIRun {
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
        let input = try launch.standardInput.map { data -> FileHandle in
            let inputURL = scratch.appendingPathComponent("stdin")
            try data.write(to: inputURL)
            return try FileHandle(forReadingFrom: inputURL)
        }
        defer { try? input?.close() }
        let (status, peak) = try start(
            arguments, executable: executable, launch, standardInput: input ?? .nullDevice, standardOutput: output,
            standardError: error, partialOutput: { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" })
        return CLIRun(
            status: status,
            standardOutputData: try Data(contentsOf: outputURL),
            standardError: try String(contentsOf: errorURL, encoding: .utf8), peakResidentBytes: peak)
    }

    /// Runs `courier` (or `executable`) with its standard error on a new pseudo-terminal `columns` wide, as in a
    /// terminal window, and standard output to a file, or to the terminal as well when
    /// `outputOnTerminal` is true; waits at most `timeout` seconds, as `run` does. With
    /// `typing`, standard input is the terminal too, and that text is typed once courier runs.
    public static func runOnTerminal(
        _ arguments: [String], columns: UInt16 = 100, outputOnTerminal: Bool = false, in directory: URL? = nil,
        timeout: TimeInterval = 30, typing: String? = nil, whileRunning: (@Sendable (pid_t) -> Void)? = nil,
        executable: String = "courier"
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
        let launch = Launch(
            directory: directory, timeout: timeout,
            whileRunning: { pid in
                if let typing {
                    // As a user would: after the program has asked (and turned echo off), not before.
                    let deadline = Date() + 10
                    while terminal.partialOutput.isEmpty, Date() < deadline { usleep(10_000) }
                    usleep(100_000)
                    terminal.type(typing)
                }
                whileRunning?(pid)
            })
        let (status, _) = try start(
            arguments, executable: executable, launch,
            standardInput: typing == nil ? .nullDevice : terminal.slaveHandle,
            standardOutput: outputOnTerminal ? terminal.slaveHandle : output, standardError: terminal.slaveHandle,
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

    /// Starts the child and waits for it to exit; kills it and throws after the timeout.
    /// `afterStart` runs once the child has its copies of the handles. Returns the exit status
    /// and the child's peak resident memory (VmHWM), sampled while it ran.
    private static func start(
        _ arguments: [String], executable: String = "courier", _ launch: Launch, standardInput: FileHandle,
        standardOutput: FileHandle, standardError: FileHandle, afterStart: () -> Void = {},
        partialOutput: () -> String
    ) throws -> (status: Int32, peakResidentBytes: Int?) {
        let process = Process()
        if launch.closingStandardError {
            // Process cannot start a child with a descriptor closed; the shell can, and then
            // becomes courier.
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", #"exec "$0" "$@" 2>&-"#, try url(executable).path] + arguments
        } else {
            process.executableURL = try url(executable)
            process.arguments = arguments
        }
        if let directory = launch.directory { process.currentDirectoryURL = directory }
        if !launch.environment.isEmpty || Sanitizer.isActive {
            process.environment = Sanitizer.childEnvironment(
                ProcessInfo.processInfo.environment.merging(launch.environment) { $1 })
        }
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        afterStart()
        let pid = process.processIdentifier
        let sampler = PeakMemorySampler(pid: pid)
        sampler.start()
        if let whileRunning = launch.whileRunning { DispatchQueue.global().async { whileRunning(pid) } }
        if exited.wait(timeout: .now() + launch.timeout) == .timedOut {
            kill(pid, SIGKILL)
            exited.wait()
            sampler.stop()
            throw Failure(
                description: "\(executable) \(arguments.joined(separator: " ")) did not exit within "
                    + "\(launch.timeout) s; its output so far:\n\(partialOutput())")
        }
        return (process.terminationStatus, sampler.stop())
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
