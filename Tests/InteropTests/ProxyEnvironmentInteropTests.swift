import Courier
import Foundation
import XCTest

/// The proxy from the environment, as libcurl reads it: `http_proxy` (lower case only),
/// `https_proxy`/`HTTPS_PROXY`, `no_proxy`/`NO_PROXY`; a `proxyHost` set on the request wins.
final class ProxyEnvironmentInteropTests: XCTestCase {
    private func run(
        _ url: URL, environment: [String: String], configure: (HTTPRequest) -> Void = { _ in }
    )
        -> HTTPRequest
    {
        let request = HTTPRequest(url: url)
        request.timeOutSeconds = 10
        request.shouldPresentProxyAuthenticationDialog = false
        configure(request)
        ProxyEnvironment.with(environment) { request.startSynchronous() }
        return request
    }

    /// Whether tinyproxy forwarded `path` (its request line names it).
    private func wentThroughTinyproxy(_ path: String, _ proxies: ProxyServers, expected: Bool) -> Bool {
        !proxies.tinyproxyRequests(waitingFor: 1, timeout: expected ? 5 : 0.3) { $0.contains(path) }.isEmpty
    }

    func testThatHTTPProxyFromTheEnvironmentIsUsedAndNoProxyBypassesIt() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let proxy = "http://127.0.0.1:\(proxies.httpProxyPort)"
        let through = "/anything/\(UUID().uuidString)"
        XCTAssertNil(run(servers.httpbinURL(through), environment: ["http_proxy": proxy]).error)
        XCTAssertTrue(wentThroughTinyproxy(through, proxies, expected: true))

        for bypass in [["no_proxy": "127.0.0.1"], ["NO_PROXY": "localhost,127.0.0.1"], ["no_proxy": "*"]] {
            let direct = "/anything/\(UUID().uuidString)"
            XCTAssertNil(
                run(servers.httpbinURL(direct), environment: bypass.merging(["http_proxy": proxy]) { $1 }).error)
            XCTAssertFalse(wentThroughTinyproxy(direct, proxies, expected: false), "\(bypass) goes direct")
        }
        // libcurl ignores the upper-case HTTP_PROXY (a CGI program sees a request's Proxy header there).
        let upper = "/anything/\(UUID().uuidString)"
        XCTAssertNil(run(servers.httpbinURL(upper), environment: ["HTTP_PROXY": proxy]).error)
        XCTAssertFalse(wentThroughTinyproxy(upper, proxies, expected: false))
    }

    func testThatHTTPSProxyFromTheEnvironmentTunnelsInEitherCase() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        let url = servers.nginxURL("/files/\(name)", secure: true)
        for variable in ["https_proxy", "HTTPS_PROXY"] {
            let before = proxies.tinyproxyRequests { $0.hasPrefix("CONNECT localhost:\(url.port!)") }.count
            let request = run(url, environment: [variable: "127.0.0.1:\(proxies.httpProxyPort)"]) {
                $0.caBundlePath = servers.caBundlePath
                $0.shouldAttemptPersistentConnection = false
            }
            XCTAssertNil(request.error, variable)
            let after = proxies.tinyproxyRequests(waitingFor: before + 1) {
                $0.hasPrefix("CONNECT localhost:\(url.port!)")
            }
            XCTAssertEqual(after.count, before + 1, variable)
        }
    }

    func testThatTheEnvironmentsProxyCredentialsAreUsed() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let proxy = "http://\(ProxyServers.user):\(ProxyServers.password)@127.0.0.1:\(proxies.authenticatingProxyPort)"
        let request = run(servers.httpbinURL("/anything/\(UUID().uuidString)"), environment: ["http_proxy": proxy])
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
    }

    func testThatAProxyHostSetOnTheRequestWinsOverTheEnvironment() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let path = "/anything/\(UUID().uuidString)"
        let closed = try LoopbackPort.free()
        // The environment names a proxy that is down and bypasses everything: neither applies.
        let request = run(
            servers.httpbinURL(path), environment: ["http_proxy": "127.0.0.1:\(closed)", "no_proxy": "*"]
        ) {
            $0.proxyHost = "127.0.0.1"
            $0.proxyPort = proxies.httpProxyPort
        }
        XCTAssertNil(request.error)
        XCTAssertTrue(
            wentThroughTinyproxy(path, proxies, expected: true), "no_proxy does not bypass the request's proxy")
    }

    func testThatAnEnvironmentProxyThatIsDownFailsNamingIt() throws {
        let servers = try InteropServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        let closed = try LoopbackPort.free()
        let request = run(
            servers.nginxURL("/files/\(name)"), environment: ["http_proxy": "http://someone:pw@127.0.0.1:\(closed)"])
        XCTAssertEqual(request.error?.type, .connectionFailure)
        let message = request.error?.message ?? ""
        XCTAssertTrue(message.contains("(http://127.0.0.1:\(closed))"), message)
        XCTAssertFalse(message.contains("pw"), "no credentials in the message: \(message)")
        XCTAssertTrue(servers.accessLog(timeout: 0.5) { $0.uri.hasSuffix(name) }.isEmpty, "never sent direct")
    }
}
