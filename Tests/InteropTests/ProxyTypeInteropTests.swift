import Courier
import Foundation
import XCTest

/// `proxyType`: an HTTPS proxy (TLS to the proxy, its certificate verified) and SOCKS through
/// Dante; a proxy that is down or refuses fails the request, naming the proxy, and the request is
/// never sent direct instead.
final class ProxyTypeInteropTests: XCTestCase {
    private func run(
        _ url: URL, type: ProxyType, port: Int, configure: (HTTPRequest) -> Void = { _ in }
    ) -> HTTPRequest {
        let request = HTTPRequest(url: url)
        request.proxyHost = "127.0.0.1"
        request.proxyPort = port
        request.proxyType = type
        request.timeOutSeconds = 10
        configure(request)
        ProxyEnvironment.with { request.startSynchronous() }
        return request
    }

    private func makeFile() throws -> (name: String, servers: InteropServers) {
        let servers = try InteropServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1_000)
        return (name, servers)
    }

    func testThatTheDefaultProxyTypeIsHTTP() {
        XCTAssertEqual(HTTPRequest(url: URL(string: "http://127.0.0.1/")!).proxyType, .http)
        XCTAssertEqual(ProxyType.allCases, [.http, .https, .socks4, .socks4a, .socks5, .socks5h])
    }

    func testThatAnHTTPSProxyIsReachedOverTLSWithItsCertificateVerified() throws {
        let (name, servers) = try makeFile()
        let proxies = try ProxyServers.shared
        for secure in [false, true] {
            let request = run(
                servers.nginxURL("/files/\(name)", secure: secure), type: .https, port: proxies.httpsProxyPort
            ) {
                $0.caBundlePath = servers.caBundlePath
            }
            XCTAssertNil(request.error, "secure origin \(secure)")
            XCTAssertEqual(request.responseData()?.count, 1_000)
        }
        XCTAssertEqual(
            proxies.tinyproxyRequests(waitingFor: 2) { $0.contains(name) || $0.hasPrefix("CONNECT localhost") }.isEmpty,
            false)
        XCTAssertTrue(proxies.tinyproxyRequests { $0.contains(name) }.contains { $0.hasPrefix("GET http://127.0.0.1") })
    }

    func testThatAnHTTPSProxyWithAnUntrustedCertificateFailsUnlessValidationIsOff() throws {
        let (name, servers) = try makeFile()
        let proxies = try ProxyServers.shared
        let url = servers.nginxURL("/files/\(name)")
        let refused = run(url, type: .https, port: proxies.httpsProxyPort)
        XCTAssertEqual(refused.error?.type, .connectionFailure)
        let message = refused.error?.message ?? ""
        XCTAssertTrue(
            message.contains("proxy's TLS certificate")
                && message.contains("https://127.0.0.1:\(proxies.httpsProxyPort)"), message)
        XCTAssertTrue(servers.accessLog(timeout: 0.5) { $0.uri.hasSuffix(name) }.isEmpty, "never sent direct")

        let unchecked = run(url, type: .https, port: proxies.httpsProxyPort) { $0.validatesSecureCertificate = false }
        XCTAssertNil(unchecked.error)
        XCTAssertEqual(unchecked.responseStatusCode, 200)
    }

    func testThatSOCKSProxiesCarryHTTPAndHTTPS() throws {
        let (name, servers) = try makeFile()
        let proxies = try ProxyServers.shared
        for type in [ProxyType.socks4, .socks5, .socks5h] {
            for secure in [false, true] {
                let url = servers.nginxURL("/files/\(name)", secure: secure)
                let before = proxies.socksConnections().count
                let request = run(url, type: type, port: proxies.socksPort) {
                    $0.caBundlePath = servers.caBundlePath
                    // A new connection each time, so each goes through Dante anew.
                    $0.shouldAttemptPersistentConnection = false
                }
                XCTAssertNil(request.error, "\(type) secure \(secure)")
                XCTAssertEqual(request.responseData()?.count, 1_000, "\(type) secure \(secure)")
                let connections = proxies.socksConnections(waitingFor: before + 1)
                XCTAssertTrue(
                    connections.dropFirst(before).contains { $0.hasSuffix("127.0.0.1.\(url.port!)") },
                    "\(type): Dante connected to nginx: \(connections.suffix(2))")
            }
        }
    }

    func testThatASOCKSProxyRefusingTheRequestFailsItNamingTheProxy() throws {
        let (name, servers) = try makeFile()
        let proxies = try ProxyServers.shared
        // Dante does not speak SOCKS4a.
        let request = run(servers.nginxURL("/files/\(name)"), type: .socks4a, port: proxies.socksPort)
        XCTAssertEqual(request.error?.type, .connectionFailure)
        XCTAssertTrue(
            request.error?.message.contains("socks4a://127.0.0.1:\(proxies.socksPort)") == true,
            "\(String(describing: request.error))")
        XCTAssertTrue(servers.accessLog(timeout: 0.5) { $0.uri.hasSuffix(name) }.isEmpty, "never sent direct")
    }

    func testThatAProxyThatIsDownFailsTheRequestAndNothingGoesDirect() throws {
        let (name, servers) = try makeFile()
        let closedPort = try LoopbackPort.free()
        for type in [ProxyType.http, .https, .socks5, .socks5h] {
            for secure in [false, true] {
                let request = run(servers.nginxURL("/files/\(name)", secure: secure), type: type, port: closedPort) {
                    $0.caBundlePath = servers.caBundlePath
                }
                XCTAssertEqual(request.error?.type, .connectionFailure, "\(type)")
                let message = request.error?.message ?? ""
                XCTAssertTrue(
                    message.contains("proxy could not be used (\(type.rawValue)://127.0.0.1:\(closedPort))"), message)
            }
        }
        XCTAssertTrue(servers.accessLog(timeout: 0.5) { $0.uri.hasSuffix(name) }.isEmpty, "never sent direct")
    }
}
