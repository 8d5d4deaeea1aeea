import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Bad input fails the request with a clear error before anything is sent. A server of its own
/// (`ServerTestCase`), so that "nothing arrived" is about this test alone.
final class BadInputTests: ServerTestCase {
    private func assertFailsBeforeSending(
        _ request: HTTPRequest, with type: NetworkErrorType, mentioning text: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let delegate = RecordingDelegate()
        request.delegate = delegate
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, type, file: file, line: line)
        XCTAssertTrue(
            request.error?.description.contains(text) ?? false, "\(String(describing: request.error))", file: file,
            line: line)
        XCTAssertEqual(
            delegate.log.all, ["delegate.failed(\(type))@main"], "no attempt started", file: file, line: line)
        XCTAssertEqual(server.connectionsAccepted, 0, "nothing reached the server", file: file, line: line)
        XCTAssertTrue(request.isFinished, file: file, line: line)
    }

    func testThatCRLFOrNULInAHeaderValueFailsBeforeSending() {
        for value in ["a\r\nX-Injected: yes", "a\nb", "a\rb", "a\u{0}b"] {
            let request = HTTPRequest(url: server.url(.echo))
            request.addRequestHeader("X-Bad", value: value)
            assertFailsBeforeSending(request, with: .internalErrorWhileBuildingRequest, mentioning: "X-Bad")
        }
    }

    func testThatABadHeaderNameFailsBeforeSending() {
        for name in ["X-Bad\r\nX-Injected", "X Bad", "X-Bad:", ""] {
            let request = HTTPRequest(url: server.url(.echo))
            request.addRequestHeader(name, value: "value")
            assertFailsBeforeSending(request, with: .internalErrorWhileBuildingRequest, mentioning: "header name")
        }
    }

    func testThatABadMethodFailsBeforeSending() {
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "GET /other HTTP/1.1\r\n"
        assertFailsBeforeSending(request, with: .internalErrorWhileBuildingRequest, mentioning: "method")
    }

    func testThatASchemeOtherThanHTTPFailsBeforeSending() {
        for text in ["ftp://127.0.0.1:\(server.port)/file", "file:///etc/passwd", "gopher://127.0.0.1/"] {
            let request = HTTPRequest(url: URL(string: text)!)
            assertFailsBeforeSending(request, with: .unableToCreateRequest, mentioning: "http and https")
        }
    }

    func testThatAURLWithoutAHostFailsBeforeSending() {
        for text in ["http://", "https:///path", "http://:8080/", "http://user@/path", "HTTP://?q"] {
            let request = HTTPRequest(url: URL(string: text)!)
            assertFailsBeforeSending(request, with: .unableToCreateRequest, mentioning: "no host")
        }
    }

    func testThatAURLRequestWithoutAURLFailsBeforeSending() {
        var urlRequest = URLRequest(url: server.url(.echo))
        urlRequest.url = nil
        let request = HTTPRequest(urlRequest: urlRequest)
        assertFailsBeforeSending(request, with: .unableToCreateRequest, mentioning: "no URL")
    }

    func testThatTheErrorBridgesToNSErrorInCouriersDomain() {
        let request = HTTPRequest(url: URL(string: "ftp://example.invalid/")!)
        request.startSynchronous()
        let error = request.error! as NSError
        XCTAssertEqual(error.domain, "CourierErrorDomain")
        XCTAssertEqual(error.code, 5)
        XCTAssertTrue(error.localizedDescription.contains("ftp://example.invalid/"))
    }

    func testThatARefusedConnectionFailsWithConnectionFailure() {
        let request = HTTPRequest(url: Fixture.refusedURL)
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .connectionFailure)
        XCTAssertEqual(request.error?.curlCode, 7)
        XCTAssertEqual(request.responseStatusCode, 0)
        XCTAssertNil(request.responseData())
    }
}
