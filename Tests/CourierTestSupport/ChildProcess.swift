import Foundation
import XCTest

/// Runs one test of this bundle in a child process, for what must not happen in the runner
/// itself: a trap, or a peak-memory measurement.
public enum ChildProcess {
    /// The environment variable that tells a test it is the child.
    public static let roleVariable = "COURIER_CHILD_ROLE"

    /// The role this process was started for, or nil in the normal test run.
    public static var role: String? { ProcessInfo.processInfo.environment[roleVariable] }

    public struct Result: Sendable {
        public var status: Int32
        public var terminatedBySignal: Bool
        public var output: String
    }

    /// Runs `testName` ("CourierTests.Class/testMethod") of this test bundle with `role` set,
    /// and `environment` added to this process's own.
    /// The child reports back through its output: print a line the parent looks for.
    ///
    /// With `measuresMemory`, the test runs as a grandchild forked by `/bin/sh`: Linux records the
    /// peak RSS of the address space a process replaces at exec in its `ru_maxrss`, and a child
    /// spawned straight from this (large) test runner would start with the runner's peak.
    public static func run(
        test testName: String, role: String, timeout: TimeInterval = 120, measuresMemory: Bool = false,
        environment extra: [String: String] = [:]
    ) throws -> Result {
        let process = Process()
        if measuresMemory {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            // No exec: the shell forks the test binary from its own small address space.
            process.arguments = ["-c", "\"$0\" \"$1\"; exit $?", CommandLine.arguments[0], testName]
        } else {
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = [testName]
        }
        var environment = ProcessInfo.processInfo.environment
        environment[roleVariable] = role
        environment.merge(extra) { _, new in new }
        process.environment = Sanitizer.childEnvironment(environment)
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let handle = try FileHandle(forWritingTo: outputURL)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        // A child that outlives `timeout` is killed: its status and output then fail the test.
        _ = Tool.waitForExit(process, timeout: timeout)
        try handle.close()
        let output = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        return Result(
            status: process.terminationStatus, terminatedBySignal: process.terminationReason == .uncaughtSignal,
            output: output)
    }

    /// This process's peak resident set size, in bytes.
    public static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }
}

extension XCTestCase {
    /// Slow tests call this first: `COURIER_QUICK=1 swift test` skips them for a quick local
    /// run; CI and the README's test command run everything.
    public func skipIfQuickRun() throws {
        try XCTSkipIf(
            ProcessInfo.processInfo.environment["COURIER_QUICK"] == "1" && ChildProcess.role == nil,
            "a slow test: COURIER_QUICK=1 skips it")
    }
}
