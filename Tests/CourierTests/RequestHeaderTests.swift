import Courier
import CourierTestServer
import XCTest

/// Request headers as the server receives them.
final class RequestHeaderTests: XCTestCase {
    override func tearDown() {
        HTTPRequest.defaultUserAgentString = nil
        super.tearDown()
    }

    func testThatHeadersArriveInOrderWithTheirSpellingAndValues() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.addRequestHeader("X-First", value: "one")
        request.addRequestHeader("x-MiXeD-case", value: "  spaced value ")
        request.addRequestHeader("X-Unicode", value: "caf\u{00e9}")
        request.addRequestHeader("X-Empty", value: "")
        request.addRequestHeader("X-First", value: "replaced")
        request.startSynchronous()

        let echo = try Echo(from: request)
        let names = echo.headers.compactMap(\.first)
        XCTAssertEqual(echo.header("X-First"), "replaced")
        XCTAssertEqual(echo.headers(named: "X-First").count, 1)
        XCTAssertTrue(names.contains("x-MiXeD-case"), "\(names)")
        XCTAssertEqual(echo.header("x-mixed-case"), "spaced value")
        XCTAssertEqual(echo.header("X-Unicode"), "caf\u{00e9}")
        XCTAssertEqual(echo.header("X-Empty"), "")
        let first = try XCTUnwrap(names.firstIndex(of: "X-First"))
        let mixed = try XCTUnwrap(names.firstIndex(of: "x-MiXeD-case"))
        XCTAssertLessThan(first, mixed, "headers keep the order they were added in")
    }

    func testThatTheRequestHeadersPropertyIsSentAsIs() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.requestHeaders = ["Accept": "application/json", "X-Token": "abc"]
        XCTAssertEqual(request.requestHeaders["accept"], "application/json")
        request.startSynchronous()
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.header("Accept"), "application/json")
        XCTAssertEqual(echo.header("X-Token"), "abc")
    }

    func testThatTheUserAgentFollowsASIPrecedence() throws {
        func agent(_ configure: (HTTPRequest) -> Void) throws -> String? {
            let request = HTTPRequest(url: Fixture.url(.echo))
            configure(request)
            request.startSynchronous()
            return try Echo(from: request).header("User-Agent")
        }
        XCTAssertEqual(try agent { _ in }, "Courier/\(courierVersion) (Linux)")
        XCTAssertEqual(try agent { $0.userAgentString = "Property/1" }, "Property/1")
        XCTAssertEqual(
            try agent {
                $0.userAgentString = "Property/1"
                $0.addRequestHeader("User-Agent", value: "Header/2")
            }, "Header/2")
        XCTAssertEqual(try agent { _ in }, "Courier/\(courierVersion) (Linux)", "the next request does not reuse it")
        HTTPRequest.defaultUserAgentString = "Default/3"
        XCTAssertEqual(try agent { _ in }, "Default/3")
        HTTPRequest.defaultUserAgentString = nil
        XCTAssertEqual(try agent { _ in }, "Courier/\(courierVersion) (Linux)")
    }

    func testThatUserInfoAndTagAreNeverSent() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.userInfo = ["secret": "do-not-send"]
        request.tag = 42
        request.startSynchronous()
        let echo = try Echo(from: request)
        XCTAssertFalse(echo.headers.flatMap { $0 }.contains { $0.contains("do-not-send") || $0 == "42" })
        XCTAssertEqual(request.tag, 42)
        XCTAssertEqual(request.userInfo?["secret"] as? String, "do-not-send")
    }
}
