import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// `HTTPRequest.maxIdleConnections` caps the connections kept open between transfers, across the
/// whole process: a burst of downloads leaves at most that many sockets behind.
final class IdleConnectionTests: XCTestCase {
    override func tearDown() {
        HTTPRequest.maxIdleConnections = 64
        super.tearDown()
    }

    /// The file descriptors this process has open now.
    private static func openDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    /// Runs `count` small GETs at once against a server of their own, then stops the server (so
    /// that only the client's ends of the connections can still be open) and returns how many
    /// more descriptors are open than before. `bound` is the most the caller will accept: the
    /// count is read again (within a few seconds) until it is at most that.
    private func descriptorsLeftAfterBurst(of count: Int, bound: Int) throws -> Int {
        let before = Self.openDescriptors()
        let server = try TestServer()
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = count
        let callbacks = DispatchQueue(label: "idle-connection-callbacks")
        queue.callbackQueue = callbacks
        var requests: [HTTPRequest] = []
        for _ in 0..<count {
            let request = HTTPRequest(url: server.url(.bytes(64)))
            requests.append(request)
            queue.addOperation(request)
        }
        let peak = Locked(0)
        queue.go()
        waitUntil(timeout: 120) {
            peak.withLock { $0 = max($0, Self.openDescriptors()) }
            return requests.allSatisfy(\.isFinished)
        }
        XCTAssertEqual(requests.filter { $0.error != nil }.count, 0, "every download succeeds")
        XCTAssertEqual(requests.filter { $0.responseData()?.count != 64 }.count, 0)
        server.stop()
        let deadline = Date(timeIntervalSinceNow: 5)
        var left = Self.openDescriptors() - before
        while left > bound, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            left = Self.openDescriptors() - before
        }
        print(
            "IdleConnectionTests: \(count) at once: \(peak.current - before) more descriptors at the peak, "
                + "\(left) after")
        return left
    }

    func testThatAThousandConcurrentDownloadsLeaveNoThousandSocketsOpen() throws {
        try skipIfQuickRun()
        XCTAssertEqual(HTTPRequest.maxIdleConnections, 64, "the default")
        let margin = 8
        let left = try descriptorsLeftAfterBurst(of: 1_000, bound: 64 + margin)
        XCTAssertLessThanOrEqual(left, 64 + margin, "at most maxIdleConnections idle sockets stay open")
    }

    func testThatALowerMaximumTakesEffect() throws {
        HTTPRequest.maxIdleConnections = 4
        XCTAssertEqual(HTTPRequest.maxIdleConnections, 4)
        let margin = 4
        let left = try descriptorsLeftAfterBurst(of: 40, bound: 4 + margin)
        XCTAssertLessThanOrEqual(left, 4 + margin, "40 connections at once, 4 kept afterwards")

        HTTPRequest.maxIdleConnections = 0
        XCTAssertEqual(HTTPRequest.maxIdleConnections, 1, "libcurl keeps at least one")
    }

    func testThatTheConnectionCacheFollowsTheBusiestMomentUpToTheCap() {
        XCTAssertEqual(Engine.connectionCacheSize(peakRunning: 0, cap: 64), 16, "at least 16")
        XCTAssertEqual(Engine.connectionCacheSize(peakRunning: 10, cap: 64), 40, "four for each transfer at once")
        XCTAssertEqual(Engine.connectionCacheSize(peakRunning: 1_000, cap: 64), 64, "never above the cap")
        XCTAssertEqual(Engine.connectionCacheSize(peakRunning: 1, cap: 4), 4, "the cap wins over the minimum")
        XCTAssertEqual(Engine.connectionCacheSize(peakRunning: 1, cap: 0), 1)
    }
}
