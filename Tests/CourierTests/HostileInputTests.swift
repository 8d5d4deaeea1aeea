import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Hostile input from the program that uses Courier (a header, method, cookie, user name or URL
/// that came from somewhere untrusted): a CR, LF or NUL never splits the request. Either the
/// request fails before anything is sent, or the character is escaped and the server sees exactly
/// one request with no header it was not meant to have.
///
/// Every test here guards CWE-93 / CWE-113 (CRLF injection, HTTP request splitting; the
/// CVE-2019-9740 class: urllib put a CR/LF from a URL onto the wire). A server of its own
/// (`ServerTestCase`), so "nothing arrived" is about this test alone.
final class HostileInputTests: ServerTestCase {
    static let lineBreaks = ["x\r\nX-Injected: yes", "x\nX-Injected: yes", "x\rX-Injected: yes", "x\u{0}y"]

    /// The request fails with `type` and the server saw no connection at all.
    func assertRefusedBeforeSending(
        _ request: HTTPRequest, with type: NetworkErrorType = .internalErrorWhileBuildingRequest, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        request.startSynchronous()
        XCTAssertEqual(
            request.error?.type, type, "\(what): \(String(describing: request.error))", file: file, line: line)
        XCTAssertEqual(server.connectionsAccepted, 0, "\(what): nothing reached the server", file: file, line: line)
        XCTAssertEqual(server.requestsReceived, 0, what, file: file, line: line)
    }

    /// The server saw exactly one request, and none of its headers is an injected one.
    @discardableResult
    func assertOneRequestWithoutInjection(
        _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) -> RecordedRequest? {
        let requests = server.recordedRequests
        XCTAssertEqual(requests.count, 1, "\(what): one request", file: file, line: line)
        for request in requests {
            XCTAssertNil(request.header("X-Injected"), "\(what): \(request.headers)", file: file, line: line)
        }
        return requests.first
    }

    // MARK: - Header names and values (CWE-113)

    func testThatALineBreakOrNULInAHeaderNameOrValueIsRefused() {
        for bad in Self.lineBreaks {
            let added = HTTPRequest(url: server.url(.echo))
            added.addRequestHeader("X-Value", value: bad)
            assertRefusedBeforeSending(added, "addRequestHeader value \(bad.debugDescription)")

            let named = HTTPRequest(url: server.url(.echo))
            named.addRequestHeader("X-" + bad, value: "v")
            assertRefusedBeforeSending(named, "addRequestHeader name \(bad.debugDescription)")

            let assigned = HTTPRequest(url: server.url(.echo))
            assigned.requestHeaders = ["Accept": bad]
            assertRefusedBeforeSending(assigned, "requestHeaders \(bad.debugDescription)")
        }
    }

    func testThatALineBreakOrNULInTheUserAgentIsRefused() {
        for bad in Self.lineBreaks {
            let request = HTTPRequest(url: server.url(.echo))
            request.userAgentString = "Agent/1 " + bad
            assertRefusedBeforeSending(request, "userAgentString \(bad.debugDescription)")
        }
        let before = HTTPRequest.defaultUserAgentString
        defer { HTTPRequest.defaultUserAgentString = before }
        HTTPRequest.defaultUserAgentString = "Agent/1\r\nX-Injected: yes"
        assertRefusedBeforeSending(HTTPRequest(url: server.url(.echo)), "defaultUserAgentString")
    }

    // MARK: - Methods (CWE-93: a method that carries a request line of its own)

    func testThatAMethodWithALineBreakOrARequestLineIsRefused() {
        for method in ["GET\r\nX-Injected: yes", "GET /x HTTP/1.1\r\n", "GET\u{0}", "GET\n", "GET /x"] {
            let request = HTTPRequest(url: server.url(.echo))
            request.requestMethod = method
            assertRefusedBeforeSending(request, "method \(method.debugDescription)")
        }
    }

    // MARK: - Cookies (CWE-113 through the Cookie field)

    func testThatALineBreakInACookieIsRefusedOrNeverSent() throws {
        for bad in Self.lineBreaks {
            let cookie = try XCTUnwrap(
                HTTPCookie(properties: [.name: "n", .value: bad, .domain: "127.0.0.1", .path: "/"]))
            let request = HTTPRequest(url: server.url(.echo))
            request.requestCookies = [cookie]
            assertRefusedBeforeSending(request, "requestCookies \(bad.debugDescription)")

            let header = HTTPRequest(url: server.url(.echo))
            header.addRequestHeader("Cookie", value: "n=" + bad)
            assertRefusedBeforeSending(header, "Cookie header \(bad.debugDescription)")
        }
        // The jar takes no cookie with a line break (a Netscape line cannot hold one): nothing of
        // it is ever sent.
        let host = "hostile\(UUID().uuidString.prefix(8).lowercased()).localhost"
        let name = "jar\(UUID().uuidString.prefix(8))"
        let jarred = try XCTUnwrap(
            HTTPCookie(properties: [.name: name, .value: "v\r\nX-Injected: yes", .domain: host, .path: "/"]))
        HTTPRequest.addSessionCookie(jarred)
        XCTAssertFalse(HTTPRequest.sessionCookies.contains { $0.name == name }, "the jar refused it")
        let request = HTTPRequest(url: URL(string: "http://\(host):\(server.port)/echo")!)
        request.startSynchronous()
        XCTAssertNil(request.error)
        let sent = assertOneRequestWithoutInjection("a jar cookie with a line break")
        XCTAssertFalse(sent?.headers(named: "Cookie").joined().contains(name) ?? true)
    }

    // MARK: - Forms (CWE-93 inside the body: a part header of the attacker's)

    /// Names and file names are quoted-strings, escaped as browsers do (WHATWG multipart rules,
    /// RFC 7578 section 2): `"` → %22, CR → %0D, LF → %0A. A Content-Type cannot be escaped: refused.
    func testThatFormNamesAndFileNamesAreEscapedAndAContentTypeWithALineBreakIsRefused() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).txt")
        try Data("file".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let form = FormDataRequest(url: server.url(.echo))
        form.addPostValue("v\r\nX-Injected: yes", forKey: "k\"\r\nX-Injected: yes")
        form.addFile(
            file.path, withFileName: "a\"; name=\"evil\r\nX-Injected: yes\r\n\r\n.txt", andContentType: "text/plain",
            forKey: "f\r\nX-Injected: yes")
        form.startSynchronous()
        XCTAssertNil(form.error)
        let sent = try XCTUnwrap(assertOneRequestWithoutInjection("a hostile form"))
        let boundary = try XCTUnwrap(Multipart.boundary(in: sent.header("Content-Type") ?? ""))
        let parts = try XCTUnwrap(Multipart(body: sent.body, boundary: boundary), "the framing holds").parts
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts.map(\.headers.count), [1, 2], "no part header was injected: \(parts.map(\.headers))")
        XCTAssertEqual(parts.first?.parameter("name"), "k%22%0D%0AX-Injected: yes")
        XCTAssertEqual(parts.first?.text, "v\r\nX-Injected: yes", "a value is data, sent as it is")
        XCTAssertEqual(parts.last?.parameter("name"), "f%0D%0AX-Injected: yes")
        XCTAssertEqual(parts.last?.parameter("filename"), "a%22; name=%22evil%0D%0AX-Injected: yes%0D%0A%0D%0A.txt")
        XCTAssertEqual(parts.last?.contentType, "text/plain")
        XCTAssertEqual(parts.last?.text, "file")

        server.resetRecords()
        for bad in Self.lineBreaks {
            let typed = FormDataRequest(url: server.url(.echo))
            typed.addData(Data("x".utf8), withFileName: "x.txt", andContentType: "text/plain" + bad, forKey: "k")
            assertRefusedBeforeSending(typed, "a part Content-Type \(bad.debugDescription)")
            let fromDisk = FormDataRequest(url: server.url(.echo))
            fromDisk.addFile(file.path, withFileName: nil, andContentType: "text/plain" + bad, forKey: "k")
            assertRefusedBeforeSending(fromDisk, "a file part Content-Type \(bad.debugDescription)")
        }
    }

    // MARK: - Credentials (CWE-93 through Authorization and Proxy-Authorization)

    /// RFC 7617 forbids control characters in a user-id or password. Basic would base64 them, but
    /// Digest quotes the user name as it is (libcurl 7.88 escapes only `"` and `\`): a CR/LF
    /// there would split the request. So both are refused whatever the scheme.
    func testThatALineBreakOrNULInAUserNameOrPasswordIsRefusedForEveryScheme() {
        let routes: [Route] = [
            .basicAuth(user: "u", password: "p"), .digestAuth(user: "u", password: "p"),
            .ntlmAuth(user: "u", password: "p", domain: "D"),
        ]
        for route in routes {
            for bad in Self.lineBreaks {
                let user = HTTPRequest(url: server.url(route))
                user.username = "u" + bad
                user.password = "p"
                assertRefusedBeforeSending(user, "user name \(bad.debugDescription) for \(route.path)")

                let password = HTTPRequest(url: server.url(route))
                password.username = "u"
                password.password = "p" + bad
                assertRefusedBeforeSending(password, "password \(bad.debugDescription) for \(route.path)")
            }
        }
    }

    func testThatALineBreakInURLCredentialsNeverReachesTheWire() throws {
        let url = try XCTUnwrap(URL(string: "http://u%0D%0AX-Injected:%20yes:p@127.0.0.1:\(server.port)/echo"))
        assertRefusedBeforeSending(HTTPRequest(url: url), "URL credentials with %0D%0A")
    }

    func testThatALineBreakInProxyCredentialsIsRefused() throws {
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pu", password: "pp"))
        defer { proxy.stop() }
        for bad in Self.lineBreaks {
            let request = HTTPRequest(url: server.url(.echo))
            request.proxyHost = "127.0.0.1"
            request.proxyPort = proxy.port
            request.proxyUsername = "pu" + bad
            request.proxyPassword = "pp"
            assertRefusedBeforeSending(request, "proxy user name \(bad.debugDescription)")
            XCTAssertEqual(proxy.connectionsAccepted, 0, "the proxy saw nothing either")
        }
    }

    // MARK: - URLs (the CVE-2019-9740 case itself)

    /// Foundation refuses a raw CR/LF in a URL or percent-encodes it; either way the request line
    /// carries it encoded, never raw.
    func testThatALineBreakInAURLStaysEncodedOnTheWire() throws {
        let base = "http://127.0.0.1:\(server.port)"
        let raw = URL(string: base + "/echo?q=a\r\nX-Injected: yes")
        if let raw {
            let request = HTTPRequest(url: raw)
            request.startSynchronous()
            if request.error == nil {
                let sent = assertOneRequestWithoutInjection("a raw CR/LF in the URL")
                XCTAssertFalse(sent?.target.contains("\r") ?? true)
                XCTAssertFalse(sent?.target.contains("\n") ?? true)
            } else {
                XCTAssertEqual(server.requestsReceived, 0)
            }
        }
        server.resetRecords()
        let encoded = HTTPRequest(url: try XCTUnwrap(URL(string: base + "/echo/a%0D%0AX-Injected:%20yes?b=%0D%0A")))
        encoded.startSynchronous()
        XCTAssertNil(encoded.error)
        let sent = assertOneRequestWithoutInjection("%0D%0A in the path")
        XCTAssertEqual(sent?.target, "/echo/a%0D%0AX-Injected:%20yes?b=%0D%0A", "kept encoded, byte for byte")
    }
}
