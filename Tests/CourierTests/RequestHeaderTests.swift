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

    func testThatTheHeadersCourierGeneratedAreVisibleOnceTheRequestStarts() throws {
        let get = HTTPRequest(url: Fixture.url(.echo))
        get.addRequestHeader("X-Mine", value: "1")
        XCTAssertEqual(get.requestHeaders.count, 1, "before it starts, only the user's own")
        get.startSynchronous()
        var echo = try Echo(from: get)
        XCTAssertEqual(get.requestHeaders["X-Mine"], "1")
        XCTAssertEqual(get.requestHeaders["User-Agent"], "Courier/\(courierVersion) (Linux)")
        XCTAssertEqual(get.requestHeaders["User-Agent"], echo.header("User-Agent"))
        XCTAssertEqual(get.requestHeaders["Accept-Encoding"], echo.header("Accept-Encoding"))
        XCTAssertNil(get.requestHeaders["Content-Length"])

        // The common GET with no headers of its own (Courier's shared header list) shows them too.
        let plain = HTTPRequest(url: Fixture.url(.echo))
        plain.startSynchronous()
        echo = try Echo(from: plain)
        XCTAssertEqual(plain.requestHeaders["User-Agent"], echo.header("User-Agent"))
        XCTAssertEqual(plain.requestHeaders["Accept-Encoding"], "gzip, deflate")

        let post = HTTPRequest(url: Fixture.url(.echo))
        post.postBody = Data(repeating: 0x61, count: 32768)
        post.shouldCompressRequestBody = true
        post.allowCompressedResponse = false
        post.userAgentString = "Property/1"
        post.startSynchronous()
        echo = try Echo(from: post)
        XCTAssertEqual(post.requestHeaders["Content-Encoding"], "gzip")
        XCTAssertEqual(post.requestHeaders["Content-Encoding"], echo.header("Content-Encoding"))
        XCTAssertEqual(post.requestHeaders["Content-Length"], echo.header("Content-Length"), "libcurl's, from the body")
        XCTAssertEqual(post.requestHeaders["User-Agent"], "Property/1")
        XCTAssertNil(post.requestHeaders["Accept-Encoding"], "not sent, not shown")
        XCTAssertNil(post.requestHeaders["Content-Type"], "not sent, not shown")

        let empty = HTTPRequest(url: Fixture.url(.echo))
        empty.requestMethod = "POST"
        empty.startSynchronous()
        echo = try Echo(from: empty)
        XCTAssertEqual(echo.header("Content-Length"), "0")
        XCTAssertEqual(empty.requestHeaders["Content-Length"], "0", "libcurl's, for a POST without a body")

        let form = FormDataRequest(url: Fixture.url(.echo))
        form.setPostValue("v", forKey: "k")
        form.startSynchronous()
        echo = try Echo(from: form)
        XCTAssertEqual(form.requestHeaders["Content-Type"], echo.header("Content-Type"))
        XCTAssertEqual(form.requestHeaders["Content-Length"], "3")
    }

    func testThatACopyOfAStartedRequestWorksOutItsGeneratedHeadersAfresh() throws {
        let original = HTTPRequest(url: Fixture.url(.echo))
        original.addRequestHeader("X-Mine", value: "1")
        original.userAgentString = "First/1"
        original.postBody = Data("body".utf8)
        original.startSynchronous()
        XCTAssertEqual(original.requestHeaders["User-Agent"], "First/1")
        // Writing the shown list back keeps the generated fields out of the user's own.
        original.requestHeaders["X-Later"] = "2"
        XCTAssertEqual(original.requestHeaders["User-Agent"], "First/1")

        let copy = original.copy()
        XCTAssertEqual(copy.requestHeaders.map(\.name), ["X-Mine", "X-Later"], "only the user's own headers")
        copy.userAgentString = "Second/2"
        copy.postBody = Data("longer body".utf8)
        copy.startSynchronous()
        let echo = try Echo(from: copy)
        XCTAssertEqual(echo.headers(named: "User-Agent"), ["Second/2"])
        XCTAssertEqual(echo.headers(named: "Content-Length"), ["11"])
        XCTAssertEqual(echo.headers(named: "Accept-Encoding").count, 1)
        XCTAssertEqual(copy.requestHeaders["User-Agent"], "Second/2")

        let form = FormDataRequest(url: Fixture.url(.echo))
        form.addData(Data("data".utf8), forKey: "part")
        form.startSynchronous()
        let formCopy = form.copy()
        XCTAssertNil(formCopy.requestHeaders["Content-Type"], "the first run's boundary stays with it")
        formCopy.startSynchronous()
        let formEcho = try Echo(from: formCopy)
        let contentType = try XCTUnwrap(formEcho.header("Content-Type"))
        let boundary = try XCTUnwrap(Multipart.boundary(in: contentType))
        XCTAssertEqual(Multipart(body: formEcho.bodyData, boundary: boundary)?.parts.map(\.text), ["data"])
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
