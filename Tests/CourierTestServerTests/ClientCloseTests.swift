import CourierTestServer
import CourierTestSupport
import CourierThreadSanitizer
import Foundation
import Synchronization
import XCTest

/// Fault routes that hold a connection: noticing the client giving up, the per-key
/// attempt counters, and `stop()` while connections are held.
final class ClientCloseTests: ServerTestCase {
    private func client() throws -> RawHTTPClient {
        try RawHTTPClient(port: server.port)
    }

    /// Sends a GET for `route` on a new connection, without reading anything.
    private func startRequest(_ route: Route) throws -> RawHTTPClient {
        let connection = try client()
        try connection.send("GET \(route.path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        return connection
    }

    /// Waits (briefly) until the server has parsed `count` request heads; fails the test if not.
    private func waitForRequests(_ count: Int, file: StaticString = #filePath, line: UInt = #line) {
        waitUntil(
            timeout: 2, message: "the server parsed \(server.requestsReceived) of \(count) request heads", file: file,
            line: line
        ) { server.requestsReceived >= count }
    }

    func testStallReadsTheRequestSendsNothingAndNoticesTheClientClosing() throws {
        let connection = try client()
        try connection.send("POST /stall HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody")
        XCTAssertFalse(connection.waitReadable(milliseconds: 250), "stall sends nothing")
        XCTAssertEqual(server.recordedRequests.last?.body, Data("body".utf8), "whole request was read")
        XCTAssertEqual(server.connectionsClosedByClient, 0)

        let closed = Date()
        connection.closeSocket()
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1))
        XCTAssertLessThan(Date().timeIntervalSince(closed), 0.5, "noticed promptly")
        XCTAssertEqual(server.connectionsClosedByClient, 1)
    }

    func testStallNoticesAClientReset() throws {
        let connection = try startRequest(.stall)
        waitForRequests(1)
        connection.resetSocket()
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1))
    }

    func testTrickleStopsAndCountsWhenTheClientGoesAway() throws {
        let connection = try startRequest(.trickle(1000, intervalMilliseconds: 20))
        _ = try connection.read(through: "\r\n\r\n")
        XCTAssertEqual(try connection.read(count: 2), TestServer.deterministicBytes(count: 2))
        connection.closeSocket()
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1))
        usleep(100_000)
        XCTAssertEqual(server.connectionsClosedByClient, 1, "counted once")
    }

    func testDelayWakesAndCountsWhenTheClientCloses() throws {
        let connection = try startRequest(.delay(milliseconds: 60_000))
        waitForRequests(1)
        connection.closeSocket()
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1))
    }

    func testClosesOutsideFaultRoutesAreNotCounted() throws {
        let connection = try client()
        XCTAssertEqual(try connection.request("GET", "/status/200").status, 200)
        connection.closeSocket()
        XCTAssertFalse(server.waitForClientClose(count: 1, timeout: 0.2))
    }

    func testWaitForClientCloseTimesOutWithoutACount() {
        let started = Date()
        XCTAssertFalse(server.waitForClientClose(count: 1, timeout: 0.1))
        let waited = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(waited, 0.09)
        XCTAssertLessThan(waited, 1)
        XCTAssertTrue(server.waitForClientClose(count: 0, timeout: 0), "already there")
    }

    func testWaitForClientCloseWakesSeveralWaiters() throws {
        let connections = try (0..<2).map { _ in try startRequest(.stall) }
        waitForRequests(2)
        let results = Mutex<[Int: Bool]>([:])
        let group = DispatchGroup()
        for count in 1...2 {
            DispatchQueue.global().async(group: group) { [server] in
                let reached = server!.waitForClientClose(count: count, timeout: 2)
                results.withAnnotatedLock { $0[count] = reached }
            }
        }
        usleep(50_000)
        for connection in connections { connection.closeSocket() }
        XCTAssertEqual(group.wait(timeout: .now() + 3), .success)
        XCTAssertEqual(results.withAnnotatedLock { $0 }, [1: true, 2: true])
    }

    func testStallTimesStallsThenAnswersAcrossConnections() throws {
        let route = Route.stallTimes(key: "retry", count: 2)
        for attempt in 1...2 {
            let connection = try startRequest(route)
            XCTAssertFalse(connection.waitReadable(milliseconds: 150), "attempt \(attempt) stalls")
            connection.closeSocket()
            XCTAssertTrue(server.waitForClientClose(count: attempt, timeout: 1))
        }
        for _ in 0..<2 {
            let response = try client().request("GET", route.path)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "answered after 2 stalls")
            XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
        }
        XCTAssertEqual(server.hits(forKey: "retry"), 4)
        XCTAssertEqual(server.connectionsAccepted, 4)
        XCTAssertEqual(server.connectionsClosedByClient, 2)

        // Keys are independent: a fresh key stalls from its own first attempt.
        let other = try startRequest(.stallTimes(key: "other", count: 1))
        XCTAssertFalse(other.waitReadable(milliseconds: 100))
        XCTAssertEqual(server.hits(forKey: "other"), 1)
        XCTAssertEqual(server.hits(forKey: "retry"), 4)
        let zero = try client().request("GET", Route.stallTimes(key: "zero", count: 0).path)
        XCTAssertEqual(zero.text, "answered after 0 stalls")
    }

    func testResetRecordsClearsFaultCounters() throws {
        let connection = try startRequest(.stallTimes(key: "k", count: 1))
        waitForRequests(1)
        connection.closeSocket()
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1))
        XCTAssertEqual(server.hits(forKey: "k"), 1)
        server.resetRecords()
        XCTAssertEqual(server.connectionsClosedByClient, 0)
        XCTAssertEqual(server.hits(forKey: "k"), 0)
        let connectionAfterReset = try startRequest(.stallTimes(key: "k", count: 1))
        XCTAssertFalse(connectionAfterReset.waitReadable(milliseconds: 100), "attempts count from zero again")
    }

    func testStopReturnsPromptlyWhileConnectionsAreHeld() throws {
        let held = try [
            startRequest(.stall),
            startRequest(.trickle(100, intervalMilliseconds: 1000)),
            startRequest(.delay(milliseconds: 60_000)),
            startRequest(.stallTimes(key: "held", count: 5)),
        ]
        waitForRequests(held.count)
        XCTAssertEqual(server.requestsReceived, held.count)
        usleep(50_000)
        let started = Date()
        server.stop()
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(server.connectionsClosedByClient, 0, "the server ending a connection is not a client close")
        for connection in held {
            XCTAssertNotEqual(connection.readToEnd().ending, .timedOut, "connection was ended")
        }
    }
}
