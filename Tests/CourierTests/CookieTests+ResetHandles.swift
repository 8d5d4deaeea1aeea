import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The cookie jar on easy handles that are reset between transfers. A request with credentials
/// always runs on a reset handle, and libcurl keeps the cookie engine through `curl_easy_reset`,
/// so the engine turns it on once per handle (`EasyHandle.hasCookieEngine`): the jar's cookies
/// must still be stored and sent on such handles, and stay out of requests without the jar.
final class CookieResetHandleTests: ServerTestCase {
    private func send(
        _ route: Route, host: String, usingJar: Bool = true, file: StaticString = #filePath, line: UInt = #line
    ) -> HTTPRequest {
        // Credentials on every request: each one resets its handle before it runs.
        let request = HTTPRequest(url: URL(string: "http://u:p@\(host):\(server.port)\(route.path)")!)
        request.useCookiePersistence = usingJar
        request.startSynchronous()
        XCTAssertNil(request.error, file: file, line: line)
        XCTAssertEqual(request.responseStatusCode, 200, file: file, line: line)
        return request
    }

    private func sentCookies(_ request: HTTPRequest, line: UInt = #line) throws -> [String] {
        try Echo(from: request, line: line).headers(named: "Cookie").flatMap {
            $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    func testThatTheJarWorksOnResetHandlesAndStaysOutOfRequestsWithoutIt() throws {
        let host = "reset-handles.localhost"
        let kept = "kept\(UUID().uuidString.prefix(8))"
        let unstored = "unstored\(UUID().uuidString.prefix(8))"
        for round in 1...3 {
            _ = send(.headerFields([HeaderField(name: "Set-Cookie", value: "\(kept)=\(round); Path=/")]), host: host)
            let withJar = try sentCookies(send(.echo, host: host))
            XCTAssertTrue(withJar.contains("\(kept)=\(round)"), "round \(round): the jar's cookie was sent: \(withJar)")

            let withoutJar = try sentCookies(send(.echo, host: host, usingJar: false))
            XCTAssertEqual(withoutJar, [], "round \(round): no cookie without the jar")
            _ = send(
                .headerFields([HeaderField(name: "Set-Cookie", value: "\(unstored)=1; Path=/")]), host: host,
                usingJar: false)
            let after = try sentCookies(send(.echo, host: host))
            XCTAssertFalse(
                after.contains { $0.hasPrefix("\(unstored)=") },
                "round \(round): a request without the jar stored nothing in it: \(after)")
        }
    }
}
