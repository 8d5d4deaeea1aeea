import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The content each route serves, and route path round-trips.
final class RouteTests: ServerTestCase {
    private func get(_ route: Route, method: String = "GET") throws -> RawHTTPClient.Response {
        try RawHTTPClient(port: server.port).request(method, route.path)
    }

    func testStatusReasonPhrases() throws {
        let expected = [
            200: "OK", 201: "Created", 301: "Moved Permanently", 400: "Bad Request",
            403: "Forbidden", 404: "Not Found", 418: "I'm a teapot",
            500: "Internal Server Error", 503: "Service Unavailable", 299: "Status 299",
        ]
        let connection = try RawHTTPClient(port: server.port)
        for (code, reason) in expected {
            let response = try connection.request("GET", Route.status(code).path)
            XCTAssertEqual(response.status, code)
            XCTAssertEqual(response.reason, reason)
            XCTAssertEqual(response.text, "status \(code)")
            XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
        }
    }

    func testStatusWithoutBodyAnd401Challenge() throws {
        let connection = try RawHTTPClient(port: server.port)
        for code in [204, 304] {
            let response = try connection.request("GET", Route.status(code).path)
            XCTAssertEqual(response.status, code)
            XCTAssertNil(response.header("Content-Length"))
        }
        let unauthorized = try connection.request("GET", Route.status(401).path)
        XCTAssertEqual(unauthorized.reason, "Unauthorized")
        XCTAssertEqual(unauthorized.header("WWW-Authenticate"), "Basic realm=\"Courier\"")
        // Still in sync after the bodiless responses.
        XCTAssertEqual(try connection.request("GET", "/status/200").text, "status 200")
    }

    func testBytesRoute() throws {
        let connection = try RawHTTPClient(port: server.port)
        for count in [0, 1, 1000, 300_000, 1_000_003] {
            let response = try connection.request("GET", Route.bytes(count).path)
            XCTAssertEqual(response.header("Content-Type"), "application/octet-stream")
            XCTAssertEqual(response.header("Content-Length"), "\(count)")
            XCTAssertEqual(response.body, TestServer.deterministicBytes(count: count), "bytes(\(count))")
        }
        let head = try connection.request("HEAD", Route.bytes(5000).path)
        XCTAssertEqual(head.header("Content-Length"), "5000")
        XCTAssertEqual(try connection.request("GET", Route.bytes(3).path).body, Data([0, 1, 2]))
    }

    func testBytesRouteHonoursOneRange() throws {
        let connection = try RawHTTPClient(port: server.port)
        let path = Route.bytes(1000).path
        let rest = try connection.request("GET", path, headers: ["Range: bytes=600-"])
        XCTAssertEqual(rest.status, 206)
        XCTAssertEqual(rest.header("Content-Range"), "bytes 600-999/1000")
        XCTAssertEqual(rest.body, TestServer.deterministicBytes(count: 1000).suffix(400))
        let middle = try connection.request("GET", path, headers: ["Range: bytes=10-19"])
        XCTAssertEqual(middle.header("Content-Range"), "bytes 10-19/1000")
        XCTAssertEqual(middle.body, TestServer.deterministicBytes(count: 20).suffix(10))
        for start in [1000, 5000] {
            let past = try connection.request("GET", path, headers: ["Range: bytes=\(start)-"])
            XCTAssertEqual(past.status, 416, "bytes=\(start)-")
            XCTAssertEqual(past.header("Content-Range"), "bytes */1000")
            XCTAssertEqual(past.body, Data())
        }
        let ignored = try connection.request("GET", path, headers: ["Range: bytes=0-1,5-6"])
        XCTAssertEqual(ignored.status, 200, "several ranges are ignored")
        XCTAssertEqual(ignored.body.count, 1000)
    }

    func testDeterministicBytes() {
        let bytes = TestServer.deterministicBytes(count: 600, offset: 0)
        XCTAssertEqual(bytes[250], 250)
        XCTAssertEqual(bytes[251], 0)
        XCTAssertEqual(TestServer.deterministicBytes(count: 10, offset: 500), bytes.subdata(in: 500..<510))
        XCTAssertEqual(
            TestServer.deterministicBytes(count: 300_000, offset: 7).last,
            UInt8((300_000 - 1 + 7) % 251))
    }

    func testChunkedRouteDechunksToDeterministicBytes() throws {
        let connection = try RawHTTPClient(port: server.port)
        for count in [0, 1, 2, 999, 5000, 200_000] {
            let response = try connection.request("GET", Route.chunked(count).path)
            XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
            XCTAssertNil(response.header("Content-Length"))
            XCTAssertEqual(response.body, TestServer.deterministicBytes(count: count), "chunked(\(count))")
            XCTAssertTrue(response.chunkSizes.allSatisfy { $0 <= 1000 })
            if count > 1 { XCTAssertGreaterThanOrEqual(response.chunkSizes.count, 2) }
        }
    }

    func testChunkedRouteFallsBackToCloseDelimitedForHTTP10() throws {
        let connection = try RawHTTPClient(port: server.port)
        let response = try connection.request("GET", Route.chunked(5000).path, version: "HTTP/1.0")
        XCTAssertNil(response.header("Transfer-Encoding"))
        XCTAssertEqual(response.header("Connection"), "close")
        XCTAssertEqual(response.body, TestServer.deterministicBytes(count: 5000))
    }

    func testHeadersRoute() throws {
        let response = try get(
            .headerFields([
                HeaderField(name: "Set-Cookie", value: "a=1; Path=/"),
                HeaderField(name: "X-Multi", value: "one"),
                HeaderField(name: "Set-Cookie", value: "b=2"),
                HeaderField(name: "X-Multi", value: "two & three"),
            ]))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "ok")
        XCTAssertEqual(response.headers(named: "Set-Cookie"), ["a=1; Path=/", "b=2"])
        XCTAssertEqual(response.headers(named: "X-Multi"), ["one", "two & three"])

        let single = try get(.headers(["X-B": "2", "X-A": "ä 1"]))
        XCTAssertEqual(single.header("X-A"), "ä 1")
        XCTAssertEqual(single.header("X-B"), "2")
    }

    func testTextRoute() throws {
        let pac = try get(
            .text(
                "function FindProxyForURL(u, h) { return \"DIRECT\"; }",
                contentType: "application/x-ns-proxy-autoconfig"))
        XCTAssertEqual(pac.status, 200)
        XCTAssertEqual(pac.header("Content-Type"), "application/x-ns-proxy-autoconfig")
        XCTAssertEqual(pac.text, "function FindProxyForURL(u, h) { return \"DIRECT\"; }")
        XCTAssertEqual(try get(.text("ä & b")).header("Content-Type"), "text/plain; charset=utf-8")
    }

    func testCharsetRoute() throws {
        let utf8 = try get(.charset("UTF-8"))
        XCTAssertEqual(utf8.header("Content-Type"), "text/plain; charset=UTF-8")
        XCTAssertEqual(utf8.text, "Grüße, café — 日本語テキスト")

        let latin1 = try get(.charset("ISO-8859-1"))
        XCTAssertEqual(String(data: latin1.body, encoding: .isoLatin1), "Grüße, café")

        let sjis = try get(.charset("Shift_JIS"))
        XCTAssertEqual(String(data: sjis.body, encoding: .shiftJIS), "日本語テキスト")

        let utf16 = try get(.charset("UTF-16"))
        XCTAssertEqual(Array(utf16.body.prefix(2)), [0xFE, 0xFF])
        XCTAssertEqual(String(data: utf16.body, encoding: .utf16), TestServer.charsetSampleText(for: "UTF-16"))

        let ascii = try get(.charset("US-ASCII"))
        XCTAssertEqual(ascii.text, "plain ascii")

        let none = try get(.charset(nil))
        XCTAssertEqual(none.header("Content-Type"), "text/plain")
        XCTAssertEqual(none.body, Data([0x47, 0x72, 0xFC, 0xDF, 0x65, 0x2C, 0x20, 0x63, 0x61, 0x66, 0xE9]))

        let middle = try get(.charsetInMiddle("ISO-8859-1"))
        XCTAssertEqual(middle.header("Content-Type"), "text/plain; format=flowed; charset=ISO-8859-1; delsp=yes")
        XCTAssertEqual(middle.body, TestServer.charsetSampleBody(for: "ISO-8859-1"))
    }

    func testRoutePathsRoundTrip() {
        let routes: [Route] = [
            .echo, .status(418), .bytes(0), .chunked(12345), .charset("Shift_JIS"), .charset(nil),
            .charsetInMiddle("UTF-8"), .headers([:]), .headers(["X-A": "a=b&c", "X-B": "ü %"]),
            .headerFields([HeaderField(name: "Set-Cookie", value: "1"), HeaderField(name: "Set-Cookie", value: "2")]),
            .text("a&b=c; ü"), .text("", contentType: "application/x-ns-proxy-autoconfig"),
        ]
        for route in routes {
            XCTAssertEqual(Route(path: route.path), route, route.path)
        }
        XCTAssertEqual(Route(path: "http://127.0.0.1:1/status/500"), .status(500))
        XCTAssertEqual(Route(path: "/echo/anything?q=1"), .echo)
        XCTAssertNil(Route(path: "/bytes/-1"))
        XCTAssertNil(Route(path: "/status/abc"))
        XCTAssertNil(Route(path: "/"))
    }
}
