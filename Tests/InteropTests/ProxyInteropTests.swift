import Courier
import CourierThreadSanitizer
import Foundation
import Synchronization
import XCTest

/// Courier through tinyproxy, a real HTTP proxy: http in absolute form, https through `CONNECT`,
/// and tinyproxy's Basic authentication answered by the request's credentials or a delegate.
/// The proxy credentials never reach the origin.
final class ProxyInteropTests: FreshSessionTestCase {
    /// A request for `url` through the proxy at 127.0.0.1:`port`, run synchronously with no proxy
    /// in the environment.
    private func run(
        _ url: URL, proxyPort port: Int, configure: (HTTPRequest) -> Void = { _ in }
    ) throws -> HTTPRequest {
        let request = HTTPRequest(url: url)
        request.proxyHost = "127.0.0.1"
        request.proxyPort = port
        request.timeOutSeconds = 10
        request.shouldPresentProxyAuthenticationDialog = false
        request.caBundlePath = try InteropServers.shared.caBundlePath
        configure(request)
        ProxyEnvironment.with { request.startSynchronous() }
        return request
    }

    /// What httpbin's `/anything` saw: its header fields.
    private func headersSeen(by request: HTTPRequest) throws -> [String: String] {
        let data = try XCTUnwrap(request.responseData())
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(object["headers"] as? [String: String])
    }

    func testThatAnHTTPRequestGoesThroughTinyproxy() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let path = "/anything/\(UUID().uuidString)"
        let request = try run(servers.httpbinURL(path), proxyPort: proxies.httpProxyPort)
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        let lines = proxies.tinyproxyRequests(waitingFor: 1) { $0.contains(path) }
        XCTAssertEqual(lines, ["GET \(servers.httpbinURL(path).absoluteString) HTTP/1.1"])
    }

    func testThatAnHTTPSRequestTunnelsThroughCONNECTToNginx() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 5_000)
        let url = servers.nginxURL("/files/\(name)", secure: true)
        let request = try run(url, proxyPort: proxies.httpProxyPort)
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.responseData()?.count, 5_000)
        let authority = "localhost:\(url.port!)"
        XCTAssertFalse(
            proxies.tinyproxyRequests(waitingFor: 1) { $0 == "CONNECT \(authority) HTTP/1.1" }.isEmpty,
            "tunnelled: \(proxies.tinyproxyRequests())")
        let log = servers.accessLog { $0.uri.hasSuffix(name) }
        XCTAssertEqual(log.map(\.scheme), ["https"], "TLS end to end with nginx")
    }

    func testThatATunnelsConnectResponseIsNotTheRequestsResponse() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        final class Heads: @unchecked Sendable {
            // @unchecked Sendable: `all` is guarded by `lock`.
            private let lock = NSLock()
            private var heads: [String] = []
            func add(_ line: String?) { lock.withLock { heads.append(line ?? "-") } }
            var all: [String] { lock.withLock { heads } }
        }
        let heads = Heads()
        let request = try run(servers.nginxURL("/files/\(name)", secure: true), proxyPort: proxies.httpProxyPort) {
            // A new connection: the tunnel is made for this request.
            $0.shouldAttemptPersistentConnection = false
            $0.setHeadersReceivedBlock { request, _ in heads.add(request.responseStatusMessage) }
        }
        XCTAssertNil(request.error)
        XCTAssertEqual(heads.all.count, 1, "nginx's response once, not the CONNECT's: \(heads.all)")
        XCTAssertEqual(request.responseStatusMessage?.hasPrefix("HTTP/2 200"), true, "\(heads.all)")

        // Two more on one kept tunnel: the second makes no CONNECT, and its head is the response.
        let reused = Heads()
        for _ in 0..<2 {
            let again = try run(servers.nginxURL("/files/\(name)", secure: true), proxyPort: proxies.httpProxyPort) {
                $0.setHeadersReceivedBlock { request, _ in reused.add(request.responseStatusMessage) }
            }
            XCTAssertNil(again.error)
            XCTAssertEqual(again.responseData()?.count, 100)
        }
        XCTAssertEqual(reused.all.count, 2, "one head each: \(reused.all)")
        XCTAssertTrue(reused.all.allSatisfy { $0.hasPrefix("HTTP/2 200") }, "\(reused.all)")
    }

    func testThatTinyproxysBasicAuthenticationGetsTheRequestsCredentials() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let path = "/anything/\(UUID().uuidString)"
        let request = try run(servers.httpbinURL(path), proxyPort: proxies.authenticatingProxyPort) {
            $0.proxyUsername = ProxyServers.user
            $0.proxyPassword = ProxyServers.password
        }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.proxyAuthenticationScheme, "Basic")
        XCTAssertEqual(request.proxyAuthenticationRealm, ProxyServers.realm)
        let headers = try headersSeen(by: request)
        XCTAssertNil(headers["Proxy-Authorization"], "the origin never sees the proxy credentials: \(headers)")
        XCTAssertNil(headers["Authorization"])
    }

    func testThatTinyproxyRefusesARequestWithoutOrWithWrongCredentials() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        for password in [nil, "wrong"] {
            let request = try run(servers.httpbinURL("/get"), proxyPort: proxies.authenticatingProxyPort) {
                $0.proxyUsername = password.map { _ in ProxyServers.user }
                $0.proxyPassword = password
            }
            XCTAssertEqual(
                request.error?.type, .authentication, "\(password ?? "none"): \(String(describing: request.error))")
            XCTAssertEqual(request.proxyAuthenticationRealm, ProxyServers.realm)
        }
    }

    func testThatADelegateSuppliesTinyproxysCredentials() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let delegate = ProxyCredentialDelegate()
        let request = HTTPRequest(url: servers.httpbinURL("/anything/\(UUID().uuidString)"))
        request.proxyHost = "127.0.0.1"
        request.proxyPort = proxies.authenticatingProxyPort
        request.timeOutSeconds = 10
        request.delegate = delegate
        let queue = NetworkQueue()
        queue.addOperation(request)
        // The deadline: a request still waiting for an answer after 30 s is cancelled.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { queue.cancelAllOperations() }
        ProxyEnvironment.with {
            queue.go()
            queue.waitUntilAllOperationsAreFinished()
        }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(delegate.asked.withAnnotatedLock { $0 }, ["proxy \(ProxyServers.realm)"])
        XCTAssertEqual(request.proxyAuthenticationRetryCount, 1)
        XCTAssertNil(try headersSeen(by: request)["Proxy-Authorization"])

        // The session store now has them: the next request presents them before tinyproxy asks.
        let next = try run(servers.httpbinURL("/get"), proxyPort: proxies.authenticatingProxyPort)
        XCTAssertNil(next.error)
        XCTAssertEqual(next.proxyAuthenticationRetryCount, 0)
    }

    func testThatProxyCredentialsNeverReachNginxThroughTheTunnel() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        let request = try run(
            servers.nginxURL("/files/\(name)", secure: true), proxyPort: proxies.authenticatingProxyPort
        ) {
            $0.proxyUsername = ProxyServers.user
            $0.proxyPassword = ProxyServers.password
        }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.proxyAuthenticationRealm, ProxyServers.realm, "tinyproxy asked on the CONNECT")
        let log = servers.accessLog { $0.uri.hasSuffix(name) }
        XCTAssertEqual(log.count, 1)
        XCTAssertNil(log.first?.proxyAuthorization, "no Proxy-Authorization inside the tunnel")
        XCTAssertNil(log.first?.authorization)
    }

    func testThatProxyCredentialsWithoutAProxyAreNotSentToTheServer() throws {
        let servers = try InteropServers.shared
        _ = try ProxyServers.shared
        let name = "proxy/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        let request = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
        request.proxyUsername = ProxyServers.user
        request.proxyPassword = ProxyServers.password
        request.timeOutSeconds = 10
        ProxyEnvironment.with { request.startSynchronous() }
        XCTAssertEqual(request.responseStatusCode, 200)
        let log = servers.accessLog { $0.uri.hasSuffix(name) }
        XCTAssertEqual(log.count, 1)
        XCTAssertNil(log.first?.proxyAuthorization)
    }
}

/// Answers the proxy's question with tinyproxy's credentials, and records it. Main queue.
private final class ProxyCredentialDelegate: HTTPRequestAuthenticationDelegate, Sendable {
    let asked = Mutex<[String]>([])

    func authenticationNeeded(for request: HTTPRequest) {
        asked.withAnnotatedLock { $0.append("server") }
        request.cancelAuthentication()
    }

    func proxyAuthenticationNeeded(for request: HTTPRequest) {
        asked.withAnnotatedLock { $0.append("proxy \(request.proxyAuthenticationRealm ?? "-")") }
        request.proxyUsername = ProxyServers.user
        request.proxyPassword = ProxyServers.password
        request.retryUsingSuppliedCredentials()
    }
}
