import Courier
import CourierTestServer
import Foundation
import XCTest

/// The interop servers work, and Courier talks to them: a file from nginx, httpbin's echo,
/// connection reuse seen in nginx's log, a Range request, an upload; the TLS listener, the
/// redirects and gzip checked with the curl command (Courier's side of those has its own tests).
final class InteropSmokeTests: XCTestCase {
    func testThatNginxServesAMadeFileByteForByteAndLogsTheRequest() throws {
        let servers = try InteropServers.shared
        let name = "smoke/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 300_000)
        let request = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
        // Only this Cookie header: other tests in this process leave cookies for 127.0.0.1 in
        // the shared jar, and a cookie is not bound to a port.
        request.useCookiePersistence = false
        request.addRequestHeader("Authorization", value: "Bearer interop-token")
        request.addRequestHeader("Cookie", value: "flavour=oat; size=large")
        request.startSynchronous()

        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: 300_000))
        let entry = try XCTUnwrap(servers.accessLog { $0.uri == "/files/\(name)" }.first)
        XCTAssertEqual(entry.method, "GET")
        XCTAssertEqual(entry.status, 200)
        XCTAssertEqual(entry.scheme, "http")
        XCTAssertEqual(entry.serverProtocol, "HTTP/1.1")
        XCTAssertEqual(entry.authorization, "Bearer interop-token")
        XCTAssertEqual(entry.cookie, "flavour=oat; size=large")
        XCTAssertNil(entry.range)
        XCTAssertEqual(entry.bodyBytesSent, 300_000)
    }

    func testThatHTTPBinEchoesACustomHeader() throws {
        struct Echo: Decodable { let headers: [String: String] }
        let servers = try InteropServers.shared
        let request = HTTPRequest(url: servers.httpbinURL("/get"))
        request.addRequestHeader("X-Courier-Interop", value: "hello httpbin")
        request.startSynchronous()

        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        let echo = try JSONDecoder().decode(Echo.self, from: try XCTUnwrap(request.responseData()))
        XCTAssertEqual(echo.headers["X-Courier-Interop"], "hello httpbin")
    }

    func testThatASecondRequestReusesTheFirstOnesConnection() throws {
        let servers = try InteropServers.shared
        let name = "smoke/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1000)
        for _ in 1...2 {
            let request = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
            request.startSynchronous()
            XCTAssertEqual(request.responseStatusCode, 200)
        }

        let entries = servers.accessLog(waitingFor: 2) { $0.uri == "/files/\(name)" }
        XCTAssertEqual(entries.count, 2)
        guard entries.count == 2 else { return }
        XCTAssertEqual(entries[1].connection, entries[0].connection, "the second request opened a new connection")
        XCTAssertEqual(entries[1].connectionRequests, entries[0].connectionRequests + 1)
    }

    func testThatARangeRequestGetsJustThoseBytes() throws {
        let servers = try InteropServers.shared
        let name = "smoke/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1000)
        let request = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
        request.addRequestHeader("Range", value: "bytes=10-19")
        request.startSynchronous()

        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 206)
        XCTAssertEqual(request.responseHeaders["Content-Range"], "bytes 10-19/1000")
        XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: 10, offset: 10))
        XCTAssertEqual(servers.accessLog { $0.uri == "/files/\(name)" }.first?.range, "bytes=10-19")
    }

    func testThatAPutLandsInUploadsWithTheSameDigest() throws {
        let servers = try InteropServers.shared
        let name = "smoke/\(UUID().uuidString).bin"
        let source = try servers.makeFile(named: name, size: 200_000)
        let request = HTTPRequest(url: servers.nginxURL("/upload/\(name)"))
        request.requestMethod = "PUT"
        request.postBody = try Data(contentsOf: source)
        request.startSynchronous()

        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 201)
        XCTAssertEqual(try servers.md5(ofUploaded: name), try ExternalTool.md5(of: source))
    }

    func testThatTheTLSListenerSpeaksHTTP2WithACertificateFromTheTestCA() throws {
        let servers = try InteropServers.shared
        let name = "smoke/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1000)
        let url = servers.nginxURL("/files/\(name)", secure: true)
        let output = try curl(["--head", "--http2", "--cacert", servers.caBundlePath, url.absoluteString])

        XCTAssertTrue(output.hasPrefix("HTTP/2 200"), output)
        let entry = try XCTUnwrap(servers.accessLog { $0.uri == "/files/\(name)" }.first)
        XCTAssertEqual(entry.scheme, "https")
        XCTAssertEqual(entry.serverProtocol, "HTTP/2.0")
    }

    func testThatEachRedirectStatusPointsAtItsTarget() throws {
        let servers = try InteropServers.shared
        let target = servers.nginxURL("/files/anything?a=1&b=2").absoluteString
        for status in [301, 302, 303, 307, 308] {
            let url = servers.redirectURL(status: status, to: target)
            let output = try curl([
                "--output", "/dev/null", "--write-out", "%{http_code} %{redirect_url}", url.absoluteString,
            ])
            XCTAssertEqual(output, "\(status) \(target)")
        }
    }

    func testThatGzipLocationCompressesAndIgnoresRange() throws {
        let servers = try InteropServers.shared
        let name = "smoke/\(UUID().uuidString).txt"
        try servers.makeFile(named: name, size: 50_000)
        let url = servers.nginxURL("/gzip/\(name)").absoluteString
        let headers = try curl(["--dump-header", "-", "--output", "/dev/null", "--compressed", "--range", "0-9", url])

        XCTAssertTrue(headers.hasPrefix("HTTP/1.1 200"), headers)
        XCTAssertTrue(headers.lowercased().contains("content-encoding: gzip"), headers)
        let plain = try curl(["--dump-header", "-", "--output", "/dev/null", "--range", "0-9", url])
        XCTAssertTrue(plain.hasPrefix("HTTP/1.1 206"), plain)
    }

    /// Runs the curl command (installed by scripts/setup.sh) quietly, failing on errors.
    private func curl(_ arguments: [String]) throws -> String {
        try ExternalTool.run(
            try ExternalTool.locate("curl"), ["--silent", "--show-error"] + arguments,
            in: FileManager.default.temporaryDirectory)
    }
}
