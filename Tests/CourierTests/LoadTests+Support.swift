import Foundation
import XCTest

@testable import Courier

/// How many times each request of a load test ended, by its tag: a lost callback leaves a 0, a
/// doubled one a 2.
final class EndingLedger: @unchecked Sendable {
    // @unchecked Sendable: the arrays are only touched under `lock`.
    private let lock = NSLock()
    private var finished: [Int]
    private var failed: [Int]
    private var failureTypes: [NetworkErrorType: Int] = [:]
    private var queueEnds = 0

    init(count: Int) {
        finished = Array(repeating: 0, count: count)
        failed = Array(repeating: 0, count: count)
    }

    /// For `setRequestDidFinishSelector` and completion blocks.
    func requestFinished(_ request: HTTPRequest) { lock.withLock { finished[request.tag] += 1 } }

    /// For `setRequestDidFailSelector` and failed blocks.
    func requestFailed(_ request: HTTPRequest) {
        let type = request.error?.type ?? .unhandledException
        lock.withLock {
            failed[request.tag] += 1
            failureTypes[type, default: 0] += 1
        }
    }

    /// For `setQueueDidFinishSelector`.
    func queueFinished(_ queue: NetworkQueue) { lock.withLock { queueEnds += 1 } }

    var endings: Int { lock.withLock { finished.reduce(0, +) + failed.reduce(0, +) } }
    var queueDidFinishCount: Int { lock.withLock { queueEnds } }
    var failures: [NetworkErrorType: Int] { lock.withLock { failureTypes } }

    /// Tags whose request ended other than exactly once.
    var tagsNotEndedOnce: [Int] {
        lock.withLock { (0..<finished.count).filter { finished[$0] + failed[$0] != 1 } }
    }

    /// Tags that failed.
    var failedTags: Set<Int> { lock.withLock { Set((0..<failed.count).filter { failed[$0] > 0 }) } }
}

/// The last fraction a progress delegate was given, and how many calls went above 1.
final class LastProgress: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: the values are only touched under `lock`.
    private let lock = NSLock()
    private var last: Double?
    private var overOne = 0

    func setProgress(_ progress: Double) {
        lock.withLock {
            last = progress
            if progress > 1 { overOne += 1 }
        }
    }

    var lastFraction: Double? { lock.withLock { last } }
    var callsAboveOne: Int { lock.withLock { overOne } }
}

/// What a load test measures of its own process.
enum LoadProbe {
    /// Open file descriptors of this process (entries of /proc/self/fd, less the one listing them).
    static func openDescriptors() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
    }

    /// Open descriptors once the fixture server and the engine (its multi handle's wakeup socket
    /// pair) are running, which both keep for the rest of the process: the count to come back to.
    static func baselineDescriptors() -> Int {
        _ = Fixture.server.port
        _ = Engine.shared.multi
        return openDescriptors()
    }

    /// Resident memory now, in MiB (VmRSS), and the peak so far (VmHWM).
    static func residentMiB() -> (now: Double, peak: Double) {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Raises the soft RLIMIT_NOFILE to the hard limit, and throws XCTSkip if even the hard limit is
    /// below `needed`. Returns the limit now in force.
    @discardableResult
    static func raiseDescriptorLimit(needing needed: Int) throws -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            throw XCTSkip("getrlimit(RLIMIT_NOFILE) failed: errno \(errno)")
        }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur >= rlim_t(needed) else {
            throw XCTSkip(
                "needs \(needed) file descriptors; RLIMIT_NOFILE's hard limit here is \(limit.rlim_max) "
                    + "(raise it with `ulimit -Hn` as root)")
        }
        return Int(limit.rlim_cur)
    }

    /// One line for the load table the issue asks for.
    static func report(
        _ name: String, requests: Int, concurrency: Int, fdsBefore: Int, fdsAfter: Int, started: Date
    ) {
        let memory = residentMiB()
        let line = String(
            format: "load: %@ requests=%d concurrency=%d peakRSS=%.1fMiB fds=%d->%d time=%.2fs", name, requests,
            concurrency, memory.peak, fdsBefore, fdsAfter, Date().timeIntervalSince(started))
        print(line)
    }
}

extension XCTestCase {
    /// Waits until the process's open descriptors are back to `before` plus at most the engine's
    /// idle connections, which libcurl keeps for reuse (`HTTPRequest.maxIdleConnections`), and the
    /// fixture server's ends of them; returns the count then.
    func waitForDescriptors(
        backTo before: Int, timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line
    ) -> Int {
        let allowance = 2 * HTTPRequest.maxIdleConnections
        waitUntil(
            timeout: timeout, message: "fds back to \(before) + \(allowance), now \(LoadProbe.openDescriptors())",
            file: file, line: line
        ) { LoadProbe.openDescriptors() <= before + allowance }
        return LoadProbe.openDescriptors()
    }
}
