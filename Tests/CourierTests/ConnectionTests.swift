import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Connection reuse as the server sees it.
final class ConnectionTests: ServerTestCase {
    func testThatRequestsReuseOneConnectionAcrossRequestsAndQueues() {
        HTTPRequest(url: server.url(.bytes(10))).startSynchronous()
        let post = HTTPRequest(url: server.url(.echo))
        post.postBody = Data("a body keeps the connection too".utf8)
        post.startSynchronous()
        let queue = NetworkQueue()
        queue.addOperation(HTTPRequest(url: server.url(.bytes(20))))
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(server.recordedRequests.count, 3)
        XCTAssertEqual(Set(server.recordedRequests.map(\.connectionID)).count, 1, "one connection for all three")
        XCTAssertEqual(server.connectionsAccepted, 1)
    }

    func testThatConnectionsOfABusyMomentSurviveAQuietStretch() {
        func burst() {
            let queue = NetworkQueue()
            queue.maxConcurrentOperationCount = 16
            // Slow answers, so all sixteen are open at once.
            for _ in 0..<16 { queue.addOperation(HTTPRequest(url: server.url(.delay(milliseconds: 300)))) }
            queue.go()
            waitUntilAllFinished(queue)
        }
        burst()
        XCTAssertEqual(server.connectionsAccepted, 16)
        // One request at a time: libcurl's own cache rule (four idle connections per easy handle
        // in use) would keep only four of the sixteen through this.
        for _ in 0..<20 { HTTPRequest(url: server.url(.bytes(10))).startSynchronous() }
        burst()
        XCTAssertEqual(server.connectionsAccepted, 16, "the second burst reuses the first one's connections")
        XCTAssertEqual(server.recordedRequests.count, 52)
    }

    func testThatANonPersistentRequestUsesAFreshConnectionAndClosesIt() {
        HTTPRequest(url: server.url(.bytes(10))).startSynchronous()
        let fresh = HTTPRequest(url: server.url(.bytes(10)))
        fresh.shouldAttemptPersistentConnection = false
        fresh.startSynchronous()
        HTTPRequest(url: server.url(.bytes(10))).startSynchronous()
        let ids = server.recordedRequests.map(\.connectionID)
        XCTAssertEqual(ids.count, 3)
        XCTAssertNotEqual(ids[1], ids[0], "a fresh connection")
        XCTAssertNotEqual(ids[2], ids[1], "which was closed, not kept")
        XCTAssertEqual(ids[2], ids[0], "the first connection is still there for the next request")
    }

    func testThatAnIdleConnectionOlderThanTheTimeoutIsNotReused() {
        HTTPRequest(url: server.url(.bytes(10))).startSynchronous()
        spinMainQueue(for: 2.1)  // libcurl compares whole seconds of idleness
        let later = HTTPRequest(url: server.url(.bytes(10)))
        later.persistentConnectionTimeoutSeconds = 1
        later.startSynchronous()
        let ids = server.recordedRequests.map(\.connectionID)
        XCTAssertNotEqual(ids[0], ids[1], "a connection idle for 2 s is past a 1 s timeout")
    }

    func testThatAKeepAliveTimeoutSetsTheRequestsTimeoutAndRetiresTheConnectionWhenIdleLonger() {
        let keepAlive = server.url(.headers(["Keep-Alive": "timeout=1, max=100"]))
        let first = HTTPRequest(url: keepAlive)
        first.startSynchronous()
        XCTAssertNil(first.error)
        XCTAssertEqual(first.persistentConnectionTimeoutSeconds, 1, "the server's timeout, as ASI")
        // Idle for less than the server's second: reused.
        let second = HTTPRequest(url: keepAlive)
        second.startSynchronous()
        XCTAssertEqual(server.connectionsAccepted, 1)
        // Idle for longer: the next request opens a new connection, although its own timeout is 60 s.
        spinMainQueue(for: 1.3)
        let later = HTTPRequest(url: server.url(.bytes(10)))
        later.startSynchronous()
        XCTAssertNil(later.error)
        XCTAssertEqual(later.persistentConnectionTimeoutSeconds, 60)
        let ids = server.recordedRequests.map(\.connectionID)
        XCTAssertEqual(ids.count, 3)
        XCTAssertEqual(ids[1], ids[0])
        XCTAssertNotEqual(ids[2], ids[1], "a connection idle past the server's Keep-Alive timeout is not reused")
        XCTAssertEqual(server.connectionsAccepted, 2)
        // That response said nothing of Keep-Alive: its connection lives by the request's 60 s again.
        spinMainQueue(for: 1.3)
        HTTPRequest(url: server.url(.bytes(10))).startSynchronous()
        XCTAssertEqual(server.recordedRequests.map(\.connectionID).last, ids[2])
    }

    func testThatCertificatesAreVerifiedByDefault() {
        let request = HTTPRequest(url: Fixture.url(.echo))
        XCTAssertTrue(request.validatesSecureCertificate)
        XCTAssertNil(request.caBundlePath)
        XCTAssertNil(request.clientCertificate)
        XCTAssertTrue(request.shouldAttemptPersistentConnection)
        XCTAssertEqual(request.persistentConnectionTimeoutSeconds, 60)
    }
}
