import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// A hostile server sets cookies for domains that are not its own: the jar (libcurl's, built
/// with libpsl on Debian) keeps none of them, and none is sent to the domain it names.
/// CWE-565 (reliance on cookies without validation) / cookie tossing; curl CVE-2023-38546 class.
extension HostileInputTests {
    /// Has the server at `host` answer with these Set-Cookie fields.
    func setCookies(_ fields: [String], from host: String, file: StaticString = #filePath, line: UInt = #line) {
        let route = Route.headerFields(fields.map { HeaderField(name: "Set-Cookie", value: $0) })
        let request = HTTPRequest(url: url(route, host: host))
        request.startSynchronous()
        XCTAssertNil(request.error, file: file, line: line)
        XCTAssertEqual(request.responseHeaders.values(for: "Set-Cookie").count, fields.count, file: file, line: line)
    }

    func testThatCookiesForForeignDomainsAndPublicSuffixesAreRefused() throws {
        let tag = UUID().uuidString.prefix(8).lowercased()
        // (host that answers, Domain attribute) — none of them is the host's own domain or a parent of it
        // that is not a public suffix.
        let hostile: [(host: String, domain: String)] = [
            ("127.0.0.1", "example.com"), ("127.0.0.1", ".com"), ("127.0.0.1", "co.uk"), ("127.0.0.1", "localhost"),
            ("127.0.0.1", "0.0.1"), ("127.0.0.1", "127.0.0.2"),
            ("localhost", "example.com"), ("localhost", ".com"), ("localhost", "co.uk"),
            // "localhost" is a public suffix by the list's implicit "*" rule, which libpsl applies.
            ("attacker\(tag).localhost", "localhost"), ("attacker\(tag).localhost", ".localhost"),
            ("attacker\(tag).localhost", "victim\(tag).localhost"),
            ("shop.attacker\(tag).localhost", "victim\(tag).localhost"),
        ]
        var names: [String] = []
        for (index, entry) in hostile.enumerated() {
            let name = "toss\(tag)x\(index)"
            names.append(name)
            setCookies(["\(name)=1; Domain=\(entry.domain); Path=/"], from: entry.host)
        }
        // The control: a parent domain that is no public suffix is fine.
        let control = "keep\(tag)"
        setCookies(["\(control)=1; Domain=attacker\(tag).localhost; Path=/"], from: "shop.attacker\(tag).localhost")

        let stored = Set(HTTPRequest.sessionCookies.map(\.name))
        XCTAssertTrue(stored.contains(control), "a cookie for the host's own parent domain is kept")
        for (name, entry) in zip(names, hostile) {
            XCTAssertFalse(stored.contains(name), "\(entry.host) set a cookie for \(entry.domain)")
        }

        server.resetRecords()
        for host in ["victim\(tag).localhost", "other\(tag).localhost", "localhost", "127.0.0.1"] {
            let request = HTTPRequest(url: url(.echo, host: host))
            request.startSynchronous()
            XCTAssertNil(request.error)
        }
        for sent in server.recordedRequests {
            let cookies = sent.headers(named: "Cookie").joined()
            XCTAssertFalse(names.contains { cookies.contains($0) }, "\(sent.header("Host") ?? ""): \(cookies)")
        }
    }
}
