import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// `connectTimeOutSeconds`: a connection that is not made in time fails the request as a
/// timeout, even while `timeOutSeconds` would still wait.
final class ConnectTimeoutTests: XCTestCase {
    func testThatAConnectionNeverAcceptedTimesOutAfterConnectTimeOutSeconds() throws {
        let listener = try UnacceptingListener()
        defer { listener.close() }
        let request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(listener.port)/x")!)
        request.timeOutSeconds = 20
        request.connectTimeOutSeconds = 0.5
        let started = Date()
        request.startSynchronous()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(request.error?.type, .requestTimedOut, "\(String(describing: request.error))")
        XCTAssertGreaterThanOrEqual(elapsed, 0.4)
        XCTAssertLessThan(elapsed, 5, "the connect timeout must act, not timeOutSeconds' 20 s")
    }

    func testThatAConnectTimeOutLeavesAnAnsweringServerAlone() throws {
        let server = try TestServer()
        defer { server.stop() }
        let first = HTTPRequest(url: server.url(.bytes(1000)))
        first.connectTimeOutSeconds = 2
        first.startSynchronous()
        XCTAssertNil(first.error)
        XCTAssertEqual(first.responseData(), TestServer.deterministicBytes(count: 1000))
        // A handle set up with the limit is not reused as it is by a request without one.
        let second = HTTPRequest(url: server.url(.bytes(10)))
        second.startSynchronous()
        XCTAssertNil(second.error)
        XCTAssertEqual(second.connectTimeOutSeconds, 0, "no limit unless one is set: libcurl's own")
    }
}
