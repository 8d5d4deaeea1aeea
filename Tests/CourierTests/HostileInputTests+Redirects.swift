import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// A hostile server redirects: credentials and cookies stay with the host and port they were
/// meant for, and only http and https are followed.
extension HostileInputTests {
    /// `route` on this test's server under another host name (`*.localhost` and `localhost` are
    /// loopback to libcurl, which resolves them itself).
    func url(_ route: Route, host: String, on other: TestServer? = nil) -> URL {
        URL(string: "http://\(host):\((other ?? server).port)\(route.path)")!
    }

    /// A request carrying every kind of credential and cookie, to `url`, redirected with `status`.
    func credentialedRequest(to url: URL, cookieDomain: String) -> HTTPRequest {
        let request = HTTPRequest(url: url)
        request.addRequestHeader("Authorization", value: "Bearer secret")
        request.addRequestHeader("Cookie", value: "header=secret")
        request.requestCookies = [
            HTTPCookie(properties: [.name: "mine", .value: "secret", .domain: cookieDomain, .path: "/"])!
        ]
        request.addRequestHeader("X-Other", value: "kept")
        return request
    }

    /// What the last request `target` got: no credential, no cookie of the first hop.
    func assertNothingSecret(
        in recorded: RecordedRequest?, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        guard let recorded else { return XCTFail("\(what): the redirect was not followed", file: file, line: line) }
        XCTAssertNil(recorded.header("Authorization"), what, file: file, line: line)
        XCTAssertFalse(recorded.headers(named: "Cookie").joined().contains("secret"), what, file: file, line: line)
    }

    // MARK: - Credentials never follow to another host or port (CVE-2018-1000007, CVE-2022-27776,
    // requests CVE-2018-18074; CWE-200 exposure of credentials)

    func testThatCredentialsAndCookiesDoNotFollowToAnotherHost() throws {
        for status in [301, 302, 303, 307, 308] {
            server.resetRecords()
            let target = url(.echo, host: "localhost").absoluteString + "?status=\(status)"
            let request = credentialedRequest(
                to: url(.redirect(status, to: target), host: "127.0.0.1"), cookieDomain: ".hostile.localhost")
            request.requestCookies = []
            request.startSynchronous()
            XCTAssertNil(request.error)
            let hops = server.recordedRequests
            XCTAssertEqual(hops.first?.header("Authorization"), "Bearer secret", "the first host saw it")
            assertNothingSecret(in: hops.last { $0.target.hasPrefix("/echo") }, "127.0.0.1 → localhost, \(status)")
        }
        // requestCookies whose domain matches both hosts: dropped with the change of host all the same.
        server.resetRecords()
        let target = url(.echo, host: "two.hostile.localhost").absoluteString
        let request = credentialedRequest(
            to: url(.redirect(307, to: target), host: "one.hostile.localhost"), cookieDomain: ".hostile.localhost")
        request.useCookiePersistence = false
        request.startSynchronous()
        XCTAssertTrue(server.recordedRequests.first?.header("Cookie")?.contains("mine=secret") ?? false)
        let last = server.recordedRequests.last { $0.target.hasPrefix("/echo") }
        assertNothingSecret(in: last, "one.hostile.localhost → two.hostile.localhost")
        XCTAssertEqual(last?.header("X-Other"), "kept", "a 307 keeps the other headers")
    }

    func testThatCredentialsAndCookiesDoNotFollowToAnotherPort() throws {
        let other = try TestServer()
        defer { other.stop() }
        let request = credentialedRequest(
            to: server.url(.redirect(307, to: other.url(.echo).absoluteString)), cookieDomain: "127.0.0.1")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(server.recordedRequests.first?.header("Authorization"), "Bearer secret")
        XCTAssertEqual(other.recordedRequests.count, 1)
        assertNothingSecret(in: other.recordedRequests.first, "port \(server.port) → \(other.port)")
        XCTAssertEqual(other.recordedRequests.first?.header("X-Other"), "kept")
    }

    /// `username`/`password` and the URL's own credentials are for the first host: another host
    /// that asks for them gets nothing, and the request fails with `authentication`, as with no
    /// credentials at all.
    func testThatUserNamePasswordAndURLCredentialsDoNotAnswerAnotherHostsChallenge() throws {
        let other = try TestServer()
        defer { other.stop() }
        let challenge = other.url(.basicAuth(user: "u", password: "p"))
        let configured = HTTPRequest(url: server.url(.redirect(307, to: challenge.absoluteString)))
        configured.username = "u"
        configured.password = "p"
        configured.authenticationScheme = "basic"  // sent before any challenge, to the first host
        configured.useSessionPersistence = false
        configured.startSynchronous()
        XCTAssertEqual(configured.error?.type, .authentication)
        XCTAssertNotNil(server.recordedRequests.first?.header("Authorization"), "the first host got them")
        XCTAssertEqual(other.authorizations(for: .basicAuth(user: "u", password: "p")).compactMap { $0 }, [])

        other.resetRecords()
        let inURL = try XCTUnwrap(
            URL(string: "http://u:p@127.0.0.1:\(server.port)\(Route.redirect(302, to: challenge.absoluteString).path)"))
        let fromURL = HTTPRequest(url: inURL)
        fromURL.useSessionPersistence = false
        fromURL.startSynchronous()
        XCTAssertEqual(fromURL.error?.type, .authentication)
        XCTAssertEqual(other.authorizations(for: .basicAuth(user: "u", password: "p")).compactMap { $0 }, [])

        // The user's choice: asked to, they go.
        other.resetRecords()
        let asked = HTTPRequest(url: server.url(.redirect(307, to: challenge.absoluteString)))
        asked.username = "u"
        asked.password = "p"
        asked.useSessionPersistence = false
        asked.shouldSendCredentialsAcrossRedirects = true
        asked.startSynchronous()
        XCTAssertNil(asked.error)
        XCTAssertEqual(asked.responseString(), "You are u by Basic")
    }

    /// The jar is libcurl's, scoped by host: a cookie one host set is never sent to another,
    /// across a redirect or not (CWE-565 / cookie leakage).
    func testThatJarCookiesSetByOneHostAreNotSentToAnotherAfterARedirect() throws {
        let tag = UUID().uuidString.prefix(8).lowercased()
        let name = "jar\(tag)"
        let target = url(.echo, host: "b\(tag).localhost").absoluteString
        let request = HTTPRequest(
            url: url(.redirect(302, to: target, setCookie: "\(name)=secret"), host: "a\(tag).localhost"))
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertTrue(HTTPRequest.sessionCookies.contains { $0.name == name }, "host a's cookie is in the jar")
        let last = server.recordedRequests.last { $0.target.hasPrefix("/echo") }
        XCTAssertNotNil(last)
        XCTAssertFalse(last?.headers(named: "Cookie").joined().contains(name) ?? true, "not sent to host b")
    }

    /// Proxy credentials are the proxy's: a request that goes direct sends no Proxy-Authorization.
    func testThatProxyCredentialsNeverGoToTheOrigin() throws {
        let request = HTTPRequest(url: server.url(.redirect(302, to: "/echo")))
        request.proxyUsername = "pu"
        request.proxyPassword = "pp"
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(server.recordedRequests.count, 2)
        for hop in server.recordedRequests {
            XCTAssertNil(hop.header("Proxy-Authorization"), hop.target)
        }
    }

    // MARK: - No redirect to another scheme (CWE-601 open redirect / CWE-918 SSRF; curl
    // CVE-2023-23914-class protocol restrictions: CURLOPT_REDIR_PROTOCOLS_STR is "http,https")

    func testThatARedirectToAnotherSchemeFailsAndFetchesNothing() throws {
        let listener = try TestServer()
        defer { listener.stop() }
        let targets = [
            "file:///etc/passwd", "ftp://127.0.0.1:\(listener.port)/", "gopher://127.0.0.1:\(listener.port)/_GET",
            "dict://127.0.0.1:\(listener.port)/d:x", "ldap://127.0.0.1:\(listener.port)/", "data:text/plain,hello",
            "javascript:alert(1)", "telnet://127.0.0.1:\(listener.port)/", "tftp://127.0.0.1:\(listener.port)/x",
        ]
        for target in targets {
            for status in [301, 302, 307, 308] {
                let request = HTTPRequest(url: server.url(.redirect(status, to: target)))
                request.startSynchronous()
                XCTAssertEqual(request.error?.type, .unableToCreateRequest, "\(status) → \(target)")
                XCTAssertFalse(request.responseString()?.contains("root:") ?? false, "nothing of the file was read")
            }
        }
        XCTAssertEqual(listener.connectionsAccepted, 0, "nothing connected to the other port")
    }
}
