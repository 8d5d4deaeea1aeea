import Courier
import CourierTestServer
import XCTest

/// Statuses, status lines, headers and bodies as the server sent them.
final class ResponseTests: XCTestCase {
    func testThatStatusesAreFinishedRequestsWithTheirWholeStatusLine() {
        let expected = [
            200: "HTTP/1.1 200 OK", 201: "HTTP/1.1 201 Created", 204: "HTTP/1.1 204 No Content",
            404: "HTTP/1.1 404 Not Found", 418: "HTTP/1.1 418 I'm a teapot",
            500: "HTTP/1.1 500 Internal Server Error", 503: "HTTP/1.1 503 Service Unavailable",
        ]
        for (code, line) in expected {
            let request = HTTPRequest(url: Fixture.url(.status(code)))
            request.startSynchronous()
            XCTAssertNil(request.error, "a \(code) is not an error")
            XCTAssertTrue(request.complete)
            XCTAssertEqual(request.responseStatusCode, code)
            XCTAssertEqual(request.responseStatusMessage, line)
            XCTAssertEqual(request.responseString(), code == 204 ? "" : "status \(code)")
        }
    }

    func testThatA401FailsWithAuthenticationAndKeepsStatusAndBody() throws {
        let request = HTTPRequest(url: Fixture.url(.status(401)))
        request.startSynchronous()
        let error = try XCTUnwrap(request.error)
        XCTAssertEqual(error.type, .authentication)
        XCTAssertEqual(error.code, 3)
        XCTAssertEqual(request.responseStatusCode, 401)
        XCTAssertEqual(request.responseString(), "status 401")
        XCTAssertNotNil(request.responseHeaders["WWW-Authenticate"])
    }

    func testThatResponseHeadersKeepSpellingAndOrderAndJoinRepeats() {
        let route = Route.headers(["X-Custom-Thing": "value one"])
        var components = URLComponents(url: Fixture.url(route), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "X-Custom-Thing", value: "value one"),
            URLQueryItem(name: "X-Repeated", value: "a"),
            URLQueryItem(name: "x-repeated", value: "b"),
            URLQueryItem(name: "Set-Cookie", value: "first=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT"),
            URLQueryItem(name: "Set-Cookie", value: "second=2"),
        ]
        let request = HTTPRequest(url: components.url!)
        request.useCookiePersistence = false  // keep these cookies out of the shared jar
        request.startSynchronous()
        XCTAssertNil(request.error)
        let headers = request.responseHeaders
        XCTAssertEqual(headers["x-custom-thing"], "value one")
        XCTAssertEqual(headers["X-CUSTOM-THING"], "value one")
        XCTAssertTrue(headers.contains { $0.name == "X-Custom-Thing" }, "the server's spelling is kept")
        XCTAssertEqual(headers["X-Repeated"], "a, b")
        XCTAssertEqual(
            headers.values(for: "set-cookie"), ["first=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT", "second=2"])
        let names = headers.map(\.name)
        XCTAssertLessThan(names.firstIndex(of: "X-Custom-Thing")!, names.firstIndex(of: "X-Repeated")!)
    }

    func testThatBodiesArriveExactlyWithLengthCounters() {
        for size in [0, 1, 1024, 100_000, 3_000_000] {
            let request = HTTPRequest(url: Fixture.url(.bytes(size)))
            request.startSynchronous()
            XCTAssertNil(request.error)
            XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: size), "\(size)")
            XCTAssertEqual(request.contentLength, Int64(size))
            XCTAssertEqual(request.totalBytesRead, Int64(size))
        }
    }

    func testThatAChunkedBodyArrivesWholeAndItsLengthIsTheBytesRead() {
        let request = HTTPRequest(url: Fixture.url(.chunked(12_345)))
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseHeaders["Transfer-Encoding"], "chunked")
        XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: 12_345))
        XCTAssertEqual(request.contentLength, 12_345)
    }

    func testThatAnEmptyBodyIsEmptyDataNotNil() {
        let request = HTTPRequest(url: Fixture.url(.bytes(0)))
        request.startSynchronous()
        XCTAssertEqual(request.responseData(), Data())
        XCTAssertEqual(request.responseString(), "")
    }

    func testThatMetricsAreFilledIn() {
        let request = HTTPRequest(url: Fixture.url(.bytes(10)))
        request.startSynchronous()
        let metrics = request.metrics
        XCTAssertGreaterThan(metrics.total, 0)
        XCTAssertGreaterThanOrEqual(metrics.total, metrics.firstByte)
        XCTAssertGreaterThanOrEqual(metrics.firstByte, metrics.connect)
        XCTAssertEqual(metrics.tls, 0, "plain http has no TLS handshake")
    }

    // MARK: - Charsets

    func testThatResponseStringsAreDecodedByTheirCharset() {
        let cases: [(String?, String.Encoding)] = [
            ("UTF-8", .utf8), ("ISO-8859-1", .isoLatin1), ("Shift_JIS", .shiftJIS), ("US-ASCII", .ascii),
            ("UTF-16", .utf16),
        ]
        for (charset, encoding) in cases {
            let request = HTTPRequest(url: Fixture.url(.charset(charset)))
            request.startSynchronous()
            XCTAssertNil(request.error)
            XCTAssertEqual(request.responseEncoding, encoding, charset ?? "none")
            XCTAssertEqual(request.responseString(), TestServer.charsetSampleText(for: charset), charset ?? "none")
        }
    }

    func testThatNoCharsetMeansTheDefaultResponseEncoding() {
        let request = HTTPRequest(url: Fixture.url(.charset(nil)))
        request.startSynchronous()
        XCTAssertEqual(request.responseEncoding, .isoLatin1)
        XCTAssertEqual(request.responseString(), TestServer.charsetSampleText(for: nil))

        let custom = HTTPRequest(url: Fixture.url(.charset(nil)))
        custom.defaultResponseEncoding = .windowsCP1251
        custom.startSynchronous()
        XCTAssertEqual(custom.responseEncoding, .windowsCP1251)
    }

    func testThatACharsetAmongOtherParametersIsFound() {
        let request = HTTPRequest(url: Fixture.url(.charsetInMiddle("UTF-16")))
        request.startSynchronous()
        XCTAssertEqual(request.responseEncoding, .utf16)
        XCTAssertEqual(request.responseString(), TestServer.charsetSampleText(for: "UTF-16"))
    }
}
