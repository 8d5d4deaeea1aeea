import Courier
import CourierTestServer
import XCTest

final class LoggingTests: XCTestCase {
    override func tearDown() {
        HTTPRequest.logHandler = nil
        super.tearDown()
    }

    func testThatTheLogShowsRequestLinesHeadersAndTimingWithCredentialsMasked() {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.addRequestHeader("Authorization", value: "Bearer top-secret")
        request.addRequestHeader("X-Visible", value: "shown")
        request.startSynchronous()
        let text = log.all.joined(separator: "\n")
        XCTAssertTrue(text.contains("→ GET \(Fixture.url(.echo).absoluteString)"), text)
        XCTAssertTrue(text.contains("X-Visible: shown"), text)
        XCTAssertTrue(text.contains("Authorization: Bearer ********"), text)
        XCTAssertFalse(text.contains("top-secret"), "credentials never reach the log")
        XCTAssertTrue(text.contains("← HTTP/1.1 200 OK"), text)
        XCTAssertTrue(text.contains("done 200"), text)
    }

    func testThatRetriesAreLogged() throws {
        let server = try TestServer()
        defer { server.stop() }
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let request = HTTPRequest(url: server.url(.stallTimes(key: "log", count: 1)))
        request.timeOutSeconds = 0.2
        request.numberOfTimesToRetryOnTimeout = 1
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertTrue(log.all.contains { $0.contains("retry 1 of 1") }, log.all.joined(separator: "\n"))
        XCTAssertTrue(log.all.contains { $0.contains("(attempt 2)") })
    }
}
