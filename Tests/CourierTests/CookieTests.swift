import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Cookies over real sockets: the user's cookies and the jar's in one field, `requestCookies`
/// scoped to their domain and path and kept from other hosts after a redirect, the cookies each
/// redirect hop sets, `responseCookies`, the jar's API, and what the jar refuses.
///
/// Cookies are not bound to a port and other tests leave theirs for 127.0.0.1 in the shared jar:
/// these tests use names of their own under `*.localhost` (which libcurl resolves to loopback
/// itself) and look only for their own cookies.
final class CookieTests: ServerTestCase {
    /// A name no other test (or run) uses.
    private func unique(_ base: String) -> String { "\(base)\(UUID().uuidString.prefix(8))" }

    private func url(_ route: Route, host: String = "127.0.0.1") -> URL {
        URL(string: "http://\(host):\(server.port)\(route.path)")!
    }

    private func setCookies(_ fields: [String], host: String) {
        let request = HTTPRequest(
            url: url(.headerFields(fields.map { HeaderField(name: "Set-Cookie", value: $0) }), host: host))
        request.startSynchronous()
        XCTAssertNil(request.error)
    }

    /// The Cookie fields the echo route saw, each split into its "name=value" pairs.
    private func sentCookies(
        _ request: HTTPRequest, file: StaticString = #filePath, line: UInt = #line
    ) throws
        -> [[String]]
    {
        XCTAssertNil(request.error, file: file, line: line)
        return try Echo(from: request, file: file, line: line).headers(named: "Cookie").map {
            $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    private func cookie(
        _ name: String, _ value: String, domain: String, path: String = "/", expires: Date? = nil
    ) -> HTTPCookie {
        var properties: [HTTPCookiePropertyKey: Any] = [.name: name, .value: value, .domain: domain, .path: path]
        if let expires { properties[.expires] = expires }
        return HTTPCookie(properties: properties)!
    }

    func testThatTheUsersCookieHeaderAndTheJarsCookiesGoInOneField() throws {
        let host = "one-field.localhost"
        let jarName = unique("jar")
        setCookies(["\(jarName)=fromjar; Path=/"], host: host)
        let request = HTTPRequest(url: url(.echo, host: host))
        request.addRequestHeader("Cookie", value: "mine=1; also=2")
        request.requestCookies = [cookie("listed", "3", domain: host)]
        request.startSynchronous()
        let fields = try sentCookies(request)
        XCTAssertEqual(fields.count, 1, "one Cookie field: \(fields)")
        XCTAssertEqual(fields.first?.suffix(3), ["mine=1", "also=2", "listed=3"], "the user's as given, in order")
        XCTAssertTrue(fields.first?.contains("\(jarName)=fromjar") ?? false, "\(fields)")
        XCTAssertEqual(request.requestHeaders["Cookie"], "mine=1; also=2", "the user's header is listed as theirs")
    }

    func testThatRequestCookiesGoOnlyWhereTheirDomainAndPathMatchEvenWithoutTheJar() throws {
        let host = "scoped.localhost"
        let request = HTTPRequest(url: url(.echo, host: host))
        request.useCookiePersistence = false
        request.requestCookies = [
            cookie("exact", "1", domain: host, path: "/echo"),
            cookie("parent", "2", domain: ".localhost"),
            cookie("otherPath", "3", domain: host, path: "/echoes"),
            cookie("otherHost", "4", domain: "example.com"),
            cookie("subOnly", "5", domain: "x." + host),
            cookie("expired", "6", domain: host, expires: Date(timeIntervalSinceNow: -60)),
        ]
        request.startSynchronous()
        XCTAssertEqual(try sentCookies(request), [["exact=1", "parent=2"]])
    }

    /// ASI cleared `requestCookies` on every redirect: the next hop sends only the jar's cookies
    /// for its URL, on the same host too, and the list reads empty afterwards.
    func testThatRequestCookiesAreClearedOnEveryRedirectAndOnlyTheJarsCookiesFollow() throws {
        let host = "cleared.localhost"
        let stored = unique("stored")
        setCookies(["\(stored)=fromjar; Path=/"], host: host)
        let name = unique("mine")
        let mine = cookie(name, "1", domain: ".localhost")
        for status in [301, 302, 303, 307, 308] {
            server.resetRecords()
            let request = HTTPRequest(url: url(.redirect(status, to: "/echo?status=\(status)"), host: host))
            request.requestCookies = [mine]
            request.startSynchronous()
            XCTAssertEqual(request.redirectCount, 1, "\(status)")
            let first = server.recordedRequests.first { $0.target.hasPrefix("/redirect") }?.header("Cookie") ?? ""
            XCTAssertTrue(first.contains("\(name)=1"), "the first hop had the user's cookie: \(first)")
            XCTAssertEqual(
                try sentCookies(request), [["\(stored)=fromjar"]], "\(status): only the jar's cookie followed")
            XCTAssertEqual(request.requestCookies, [], "\(status): cleared by the redirect, as in ASI")
        }

        let withoutJar = HTTPRequest(url: url(.redirect(302, to: "/echo"), host: host))
        withoutJar.useCookiePersistence = false
        withoutJar.requestCookies = [mine]
        withoutJar.startSynchronous()
        XCTAssertEqual(try sentCookies(withoutJar), [], "no jar, no cookies on the next hop")

        let asked = HTTPRequest(url: url(.redirect(307, to: "/echo"), host: host))
        asked.useCookiePersistence = false
        asked.requestCookies = [mine]
        asked.shouldSendCredentialsAcrossRedirects = true
        asked.startSynchronous()
        XCTAssertEqual(try sentCookies(asked), [], "the setting is about credentials; requestCookies never follow")
    }

    func testThatTheUsersCookieHeaderFollowsARedirectOnTheSameHostButNotToAnother() throws {
        let sameHost = HTTPRequest(url: url(.redirect(307, to: "/echo"), host: "a.localhost"))
        sameHost.useCookiePersistence = false
        sameHost.addRequestHeader("Cookie", value: "header=1")
        sameHost.startSynchronous()
        XCTAssertEqual(try sentCookies(sameHost), [["header=1"]])

        let target = url(.echo, host: "b.localhost").absoluteString
        let otherHost = HTTPRequest(url: url(.redirect(307, to: target), host: "a.localhost"))
        otherHost.useCookiePersistence = false
        otherHost.addRequestHeader("Cookie", value: "header=1")
        otherHost.startSynchronous()
        XCTAssertEqual(server.recordedRequests.last { $0.target.hasPrefix("/redirect") }?.header("Cookie"), "header=1")
        XCTAssertEqual(try sentCookies(otherHost), [], "the header did not go to b.localhost")

        let asked = HTTPRequest(url: url(.redirect(307, to: target), host: "a.localhost"))
        asked.useCookiePersistence = false
        asked.addRequestHeader("Cookie", value: "header=1")
        asked.shouldSendCredentialsAcrossRedirects = true
        asked.startSynchronous()
        XCTAssertEqual(try sentCookies(asked), [["header=1"]])
    }

    func testThatEveryRedirectHopsCookiesAreStoredAndSentOnTheNextHop() throws {
        let host = "hops.localhost"
        let first = unique("first")
        let second = unique("second")
        let inner = Route.redirect(303, to: "/echo", setCookie: "\(second)=2").path
        let request = HTTPRequest(url: url(.redirect(302, to: inner, setCookie: "\(first)=1"), host: host))
        request.startSynchronous()
        XCTAssertEqual(request.redirectCount, 2)
        let fields = try sentCookies(request)
        XCTAssertEqual(fields.count, 1)
        XCTAssertTrue(Set(fields.first ?? []).isSuperset(of: ["\(first)=1", "\(second)=2"]), "\(fields)")
        let recorded = server.recordedRequests.map { $0.header("Cookie") ?? "" }
        XCTAssertTrue(recorded[1].contains("\(first)=1"), "the second hop had the first's cookie: \(recorded)")
    }

    func testThatResponseCookiesAreReadFromTheLastResponseEvenWithoutTheJar() throws {
        let name = unique("full")
        let request = HTTPRequest(
            url: url(
                .headerFields([
                    HeaderField(
                        name: "Set-Cookie",
                        value: "\(name)=a+b; Path=/p; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Secure; HttpOnly"),
                    HeaderField(name: "Set-Cookie", value: "aged=2; Max-Age=60; Expires=Wed, 21 Oct 2037 07:28:00 GMT"),
                    HeaderField(name: "Set-Cookie", value: "wide=3; Domain=.LocalHost"),
                    HeaderField(name: "Set-Cookie", value: "foreign=4; Domain=example.com"),
                ]), host: "read.localhost"))
        request.useCookiePersistence = false
        request.startSynchronous()
        XCTAssertNil(request.error)
        let cookies = request.responseCookies
        XCTAssertEqual(cookies.map(\.name), [name, "aged", "wide"], "the foreign cookie is left out")
        guard cookies.count == 3 else { return }
        XCTAssertEqual(cookies[0].value, "a+b")
        XCTAssertEqual(cookies[0].domain, "read.localhost", "the request's host")
        XCTAssertEqual(cookies[0].path, "/p")
        XCTAssertEqual(cookies[0].expiresDate, Date(timeIntervalSince1970: 2_139_722_880))
        XCTAssertTrue(cookies[0].isSecure)
        XCTAssertTrue(cookies[0].isHTTPOnly)
        let aged = try XCTUnwrap(cookies[1].expiresDate).timeIntervalSinceNow
        XCTAssertTrue((50...61).contains(aged), "Max-Age wins over Expires: \(aged)")
        XCTAssertFalse(cookies[1].isSecure)
        XCTAssertEqual(cookies[2].domain, ".localhost")
        XCTAssertNil(cookies[2].expiresDate, "a session cookie")
        XCTAssertFalse(HTTPRequest.sessionCookies.contains { $0.name == name }, "nothing went into the jar")
    }

    func testThatTheJarRefusesCookiesForAnotherDomainOrAPublicSuffix() throws {
        let (suffix, parent, foreign, fromIP) = (unique("psl"), unique("parent"), unique("foreign"), unique("ip"))
        // libcurl resolves every *.localhost name to loopback. "localhost" is a public suffix by
        // the list's implicit "*" rule (every top-level label is one), which libpsl applies:
        // without libpsl libcurl would take Domain=localhost, as it takes that name specially.
        setCookies(
            [
                "\(suffix)=1; Domain=localhost; Path=/", "\(parent)=1; Domain=psl.localhost; Path=/",
                "\(foreign)=1; Domain=example.com; Path=/",
            ], host: "shop.psl.localhost")
        setCookies(["\(fromIP)=1; Domain=example.com; Path=/"], host: "127.0.0.1")
        let names = Set(HTTPRequest.sessionCookies.map(\.name))
        XCTAssertTrue(names.contains(parent), "the control cookie is stored")
        XCTAssertFalse(names.contains(suffix), "a cookie for a public suffix")
        XCTAssertFalse(names.contains(foreign), "a cookie for another domain")
        XCTAssertFalse(names.contains(fromIP), "a cookie for another domain, from 127.0.0.1")

        let elsewhere = HTTPRequest(url: url(.echo, host: "elsewhere.localhost"))
        elsewhere.startSynchronous()
        let sent = try sentCookies(elsewhere).joined()
        XCTAssertFalse(sent.contains("\(suffix)=1"), "\(sent)")
        let sibling = HTTPRequest(url: url(.echo, host: "www.psl.localhost"))
        sibling.startSynchronous()
        XCTAssertTrue(try sentCookies(sibling).joined().contains("\(parent)=1"))
    }

    func testThatSessionCookiesCanBeAddedReplacedSetAndCleared() throws {
        let host = "session.localhost"
        let (name, kept) = (unique("added"), unique("kept"))
        let before = HTTPRequest.sessionCookies
        defer { HTTPRequest.setSessionCookies(before) }

        HTTPRequest.addSessionCookie(cookie(name, "1", domain: host))
        HTTPRequest.addSessionCookie(cookie(name, "2", domain: host))
        HTTPRequest.addSessionCookie(cookie(kept, "3", domain: host, expires: Date(timeIntervalSinceNow: 3600)))
        XCTAssertEqual(HTTPRequest.sessionCookies.filter { $0.name == name }.map(\.value), ["2"], "replaced")
        let request = HTTPRequest(url: url(.echo, host: host))
        request.startSynchronous()
        XCTAssertEqual(Set(try sentCookies(request).joined()), ["\(name)=2", "\(kept)=3"])

        let listed = [cookie(unique("only"), "4", domain: ".localhost", path: "/echo")]
        HTTPRequest.setSessionCookies(listed)
        XCTAssertEqual(HTTPRequest.sessionCookies.map(\.name), listed.map(\.name), "the previous list is gone")
        XCTAssertEqual(HTTPRequest.sessionCookies.first?.domain, ".localhost")
        XCTAssertEqual(HTTPRequest.sessionCookies.first?.path, "/echo")

        HTTPRequest.addSessionCookie(cookie(kept, "3", domain: host, expires: Date(timeIntervalSinceNow: 3600)))
        HTTPRequest.clearSession()
        XCTAssertEqual(HTTPRequest.sessionCookies.map(\.name), [kept], "only the cookie with an expiry stays")
    }

    func testThatACookieWithALineBreakFailsTheRequestBeforeItIsSent() {
        let request = HTTPRequest(url: url(.echo))
        request.requestCookies = [cookie("bad", "1\r\nX-Injected: 1", domain: "127.0.0.1")]
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .internalErrorWhileBuildingRequest)
        XCTAssertTrue(server.recordedRequests.isEmpty)
    }
}
