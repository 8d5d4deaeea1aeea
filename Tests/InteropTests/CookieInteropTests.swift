import Courier
import Foundation
import XCTest

/// Cookies with httpbin: `/cookies/set` sets them on a 302 to `/cookies`, which echoes what it
/// was sent, so the redirect's cookie has to be stored before the next hop; later requests
/// send them; another host does not get them; `useCookiePersistence` off sends none.
final class CookieInteropTests: XCTestCase {
    private struct Cookies: Decodable { let cookies: [String: String] }

    private func cookies(
        _ request: HTTPRequest, file: StaticString = #filePath, line: UInt = #line
    ) throws
        -> [String: String]
    {
        XCTAssertNil(request.error, file: file, line: line)
        XCTAssertEqual(request.responseStatusCode, 200, file: file, line: line)
        let data = try XCTUnwrap(request.responseData(), file: file, line: line)
        return try JSONDecoder().decode(Cookies.self, from: data).cookies
    }

    func testThatHTTPBinsCookiesAreStoredAcrossItsRedirectAndSentOnlyToItsHost() throws {
        let servers = try InteropServers.shared
        let name = "interop\(UUID().uuidString.prefix(8))"
        let set = HTTPRequest(url: servers.httpbinURL("/cookies/set?\(name)=oat"))
        set.startSynchronous()
        XCTAssertEqual(set.redirectCount, 1)
        XCTAssertEqual(try cookies(set)[name], "oat", "the redirect's cookie went to the next hop")
        XCTAssertTrue(HTTPRequest.sessionCookies.contains { $0.name == name && $0.value == "oat" })

        let later = HTTPRequest(url: servers.httpbinURL("/cookies"))
        later.startSynchronous()
        XCTAssertEqual(try cookies(later)[name], "oat")

        let withoutJar = HTTPRequest(url: servers.httpbinURL("/cookies"))
        withoutJar.useCookiePersistence = false
        withoutJar.requestCookies = [
            HTTPCookie(properties: [.name: "given", .value: "1", .domain: servers.httpbinURL("/").host!, .path: "/"])!
        ]
        withoutJar.startSynchronous()
        XCTAssertEqual(try cookies(withoutJar), ["given": "1"], "only the request's own cookie")

        var other = URLComponents(url: servers.httpbinURL("/cookies"), resolvingAgainstBaseURL: false)!
        other.host = "other.localhost"
        let otherHost = HTTPRequest(url: other.url!)
        otherHost.startSynchronous()
        XCTAssertNil(try cookies(otherHost)[name], "another host")

        let deleted = HTTPRequest(url: servers.httpbinURL("/cookies/delete?\(name)"))
        deleted.startSynchronous()
        XCTAssertNil(try cookies(deleted)[name])
        XCTAssertFalse(HTTPRequest.sessionCookies.contains { $0.name == name })
    }
}
