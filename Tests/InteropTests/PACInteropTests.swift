import Courier
import CourierTestSupport
import Foundation
import XCTest

/// A PAC file choosing a real proxy (tinyproxy) for one host and DIRECT for another, against nginx.
final class PACInteropTests: XCTestCase {
    func testThatAPACFileSendsOneHostThroughTinyproxyAndAnotherDirect() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let name = "pac/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1_000)
        let direct = servers.nginxURL("/files/\(name)")
        var components = try XCTUnwrap(URLComponents(url: direct, resolvingAgainstBaseURL: false))
        components.host = "localhost"
        let proxied = try XCTUnwrap(components.url)
        let pac = try makeTemporaryDirectory().appendingPathComponent("proxy.pac")
        try """
        function FindProxyForURL(url, host) {
            if (host == "localhost") return "PROXY 127.0.0.1:\(proxies.httpProxyPort)";
            return "DIRECT";
        }
        """.write(to: pac, atomically: true, encoding: .utf8)

        for url in [proxied, direct] {
            let request = HTTPRequest(url: url)
            request.pacURL = pac
            request.timeOutSeconds = 10
            ProxyEnvironment.with { request.startSynchronous() }
            XCTAssertNil(request.error, url.absoluteString)
            XCTAssertEqual(request.responseData()?.count, 1_000, url.absoluteString)
        }
        let lines = proxies.tinyproxyRequests(waitingFor: 1) { $0.contains(name) }
        XCTAssertEqual(lines.filter { $0.contains(name) }, ["GET \(proxied.absoluteString) HTTP/1.1"], "\(lines)")
        let log = servers.accessLog { $0.uri.hasSuffix(name) }
        XCTAssertEqual(log.count, 2, "both reached nginx, one through tinyproxy")
    }

    /// After a request the PAC file routed, `proxyHost`, `proxyPort` and `proxyType` say which
    /// proxy it went through, as ASI filled them in: here SOCKS5 through Dante, and tinyproxy
    /// after the file's first choice turned out to be down.
    func testThatARequestRoutedThroughSOCKS5OrTheNextChoiceReportsThatProxy() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let name = "pac/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1_000)
        let url = servers.nginxURL("/files/\(name)")
        let down = try LoopbackPort.free()
        let answers: [(answer: String, host: String, port: Int, type: ProxyType)] = [
            ("SOCKS5 127.0.0.1:\(proxies.socksPort)", "127.0.0.1", proxies.socksPort, .socks5h),
            (
                "PROXY 127.0.0.1:\(down); PROXY 127.0.0.1:\(proxies.httpProxyPort)", "127.0.0.1", proxies.httpProxyPort,
                .http
            ),
        ]
        for (answer, host, port, type) in answers {
            let pac = try makeTemporaryDirectory().appendingPathComponent("proxy.pac")
            try "function FindProxyForURL(url, host) { return \"\(answer)\"; }".write(
                to: pac, atomically: true, encoding: .utf8)
            let before = proxies.socksConnections().count
            let request = HTTPRequest(url: url)
            request.pacURL = pac
            request.timeOutSeconds = 10
            request.shouldAttemptPersistentConnection = false
            ProxyEnvironment.with { request.startSynchronous() }
            XCTAssertNil(request.error, answer)
            XCTAssertEqual(request.responseData()?.count, 1_000, answer)
            XCTAssertEqual(request.proxyHost, host, answer)
            XCTAssertEqual(request.proxyPort, port, answer)
            XCTAssertEqual(request.proxyType, type, answer)
            if type == .socks5h {
                XCTAssertGreaterThan(proxies.socksConnections(waitingFor: before + 1).count, before, "through Dante")
            }
        }
        let lines = proxies.tinyproxyRequests(waitingFor: 1) { $0.contains(name) }
        XCTAssertEqual(lines.filter { $0.contains(name) }.count, 1, "the second went through tinyproxy: \(lines)")
    }
}
