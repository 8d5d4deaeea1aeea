import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Every way a server can misbehave ends in exactly one failure of the right type, never a hang.
final class FaultTests: ServerTestCase {
    private func assertFails(
        _ route: Route, with type: NetworkErrorType, file: StaticString = #filePath, line: UInt = #line
    ) {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(route))
        request.delegate = delegate
        request.timeOutSeconds = 1
        let started = Date()
        request.startSynchronous()
        XCTAssertEqual(
            request.error?.type, type, "\(route): \(String(describing: request.error))", file: file, line: line)
        XCTAssertEqual(delegate.log.all.filter { $0.contains("failed") }.count, 1, file: file, line: line)
        XCTAssertEqual(delegate.log.all.filter { $0.contains("finished") }.count, 0, file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "\(route) took too long", file: file, line: line)
    }

    func testThatADropMidHeadersIsAConnectionFailure() {
        assertFails(.dropMidHeaders, with: .connectionFailure)
    }

    func testThatADropMidBodyIsAConnectionFailure() {
        assertFails(.dropMidBody(100_000), with: .connectionFailure)
    }

    func testThatADropMidChunkedBodyIsAConnectionFailure() {
        assertFails(.dropMidChunked(100_000), with: .connectionFailure)
    }

    func testThatAResetIsAConnectionFailure() {
        assertFails(.reset, with: .connectionFailure)
    }

    func testThatAMalformedStatusLineIsAConnectionFailure() {
        assertFails(.malformedStatus, with: .connectionFailure)
    }

    func testThatAStallIsATimeout() {
        assertFails(.stall, with: .requestTimedOut)
    }

    func testThatADelayShorterThanTheTimeoutSucceeds() {
        let request = HTTPRequest(url: server.url(.delay(milliseconds: 200)))
        request.timeOutSeconds = 1
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "delayed 200 ms")
    }
}
