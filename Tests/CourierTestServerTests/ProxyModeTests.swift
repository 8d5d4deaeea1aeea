import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The server as an HTTP proxy for itself, with and without proxy authentication.
final class ProxyModeTests: ServerTestCase {
    func testAbsoluteFormIsServedLocallyAndMarked() throws {
        let target = server.url(.status(201)).absoluteString
        let result = try CurlClient.run(["-x", "http://127.0.0.1:\(server.port)", target])
        XCTAssertEqual(result.status, 201)
        XCTAssertEqual(result.header("X-Courier-Proxied"), "1")
        XCTAssertEqual(server.recordedRequests.last?.target, server.url(.status(201)).absoluteString)
        let direct = try CurlClient.run([server.url(.status(201)).absoluteString])
        XCTAssertNil(direct.header("X-Courier-Proxied"))
    }

    func testOtherHostsGet502AndNoConnection() throws {
        let raw = try RawHTTPClient(port: server.port)
        let response = try raw.request("GET", "http://example.com/echo")
        XCTAssertEqual(response.status, 502)
        XCTAssertEqual(response.text, "the test server proxies only to itself, not to example.com")
        XCTAssertEqual(try raw.request("GET", "http://localhost:1/status/200").status, 200, "any local port")
    }

    func testBasicProxyAuthentication() throws {
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pro", password: "xy"))
        defer { proxy.stop() }
        let target = proxy.url(.echo).absoluteString
        let none = try CurlClient.run(["-x", "http://127.0.0.1:\(proxy.port)", target])
        XCTAssertEqual(none.status, 407)
        XCTAssertEqual(none.header("Proxy-Authenticate"), "Basic realm=\"Courier proxy\"")
        XCTAssertEqual(none.body, "proxy credentials required")
        let wrong = try CurlClient.run(["-x", "http://127.0.0.1:\(proxy.port)", "--proxy-user", "pro:no", target])
        XCTAssertEqual(wrong.status, 407)
        XCTAssertEqual(wrong.body, "proxy credentials refused")
        let right = try CurlClient.run(["-x", "http://127.0.0.1:\(proxy.port)", "--proxy-user", "pro:xy", target])
        XCTAssertEqual(right.status, 200)
        XCTAssertEqual(right.header("X-Courier-Proxied"), "1")
        XCTAssertEqual(proxy.proxyChallengesSent, 2)
        // Origin-form requests never need the proxy's credentials.
        XCTAssertEqual(try CurlClient.run([target]).status, 200)
    }

    func testDigestProxyAuthentication() throws {
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pro", password: "xy", scheme: .digest))
        defer { proxy.stop() }
        let target = proxy.url(.status(204)).absoluteString
        let arguments = ["-x", "http://127.0.0.1:\(proxy.port)", "--proxy-digest"]
        let right = try CurlClient.run(arguments + ["--proxy-user", "pro:xy", target])
        XCTAssertEqual(right.statuses, [407, 204])
        XCTAssertEqual(right.header("X-Courier-Proxied"), "1")
        let wrong = try CurlClient.run(arguments + ["--proxy-user", "pro:no", target])
        XCTAssertEqual(wrong.statuses, [407, 407])
        XCTAssertEqual(proxy.proxyChallengesSent, 3)
    }
}
