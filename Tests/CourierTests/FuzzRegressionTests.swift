import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// Inputs the libFuzzer targets (Fuzz/) found crashing Courier, kept here inline so they never
/// crash it again. Each test says which target found it; `Fuzz/run.sh` runs the targets.
final class FuzzRegressionTests: ServerTestCase {
    /// The largest expiry a Netscape line holds: the jar's field is a 64-bit count of seconds.
    private static let farFuture = Int64.max

    /// Found by SetCookie (the input "\0big=x; Max-Age=9223372036854775807"): a Max-Age past
    /// Int64.max seconds from now made `addSessionCookie` trap converting the expiry to Int64
    /// for the jar's line. Over a real socket, as a user meets it: the cookie a server set,
    /// handed back to the jar.
    func testThatACookieWithAHugeMaxAgeGoesIntoTheJar() throws {
        let name = "fuzzbig\(UUID().uuidString.prefix(8))"
        let field = HeaderField(name: "Set-Cookie", value: "\(name)=x; Max-Age=9223372036854775807")
        let url = URL(string: "http://fuzz.localhost:\(server.port)\(Route.headerFields([field]).path)")!
        let request = HTTPRequest(url: url)
        request.useCookiePersistence = false
        request.startSynchronous()
        XCTAssertNil(request.error)
        let cookie = try XCTUnwrap(request.responseCookies.first { $0.name == name })
        HTTPRequest.addSessionCookie(cookie)
        let stored = try XCTUnwrap(HTTPRequest.sessionCookies.first { $0.name == name }, "the cookie is in the jar")
        XCTAssertEqual(stored.value, "x")
        let expiry = try XCTUnwrap(stored.expiresDate, "a persistent cookie, not a session one")
        XCTAssertGreaterThan(expiry, Date(timeIntervalSince1970: 1e18), "still the far future")
    }

    /// Found by CookieFile (a cookie file line with the expiry 9223372036854775807): the cookie
    /// read from such a line trapped when written as a line again (what `addSessionCookie` and
    /// `setSessionCookies` do with the cookies `sessionCookies` gave).
    func testThatACookieFileLineWithTheLargestExpiryWritesBackUnchanged() throws {
        let line = "host\tFALSE\t/\tFALSE\t9223372036854775807\tfar\tv"
        let cookie = try XCTUnwrap(NetscapeCookieLine.cookie(from: line[...]))
        XCTAssertEqual(NetscapeCookieLine.line(for: cookie), line)
        XCTAssertEqual(NetscapeCookieLine.expiryField(Date(timeIntervalSince1970: 1e300)), Self.farFuture)
        XCTAssertEqual(NetscapeCookieLine.expiryField(Date(timeIntervalSince1970: -5)), 1, "0 would mean a session")
        XCTAssertEqual(NetscapeCookieLine.expiryField(Date(timeIntervalSince1970: 1_764_612_680.9)), 1_764_612_680)
    }

    /// Found by CookieFile (Fuzz/Corpus/CookieFile/regression-hash-domain): the line
    /// ".#a.b.c\tFALSE\t/…" read as a cookie for "#a.b.c", which was written back as a line
    /// starting with "#", a comment to libcurl and to the reader: the cookie vanished on the next
    /// load. No host starts with "#": such a line is no cookie, and such a cookie has no line.
    func testThatACookieWhoseDomainWouldStartWithAHashIsNeitherReadNorWritten() throws {
        XCTAssertNil(NetscapeCookieLine.cookie(from: ".#a.b.c\tFALSE\t/\tFALSE\t41024402444800\tdo\tv"))
        XCTAssertNil(NetscapeCookieLine.cookie(from: "#a.b.c\tTRUE\t/\tFALSE\t0\tdo\tv"), "a comment")
        let made = try XCTUnwrap(
            HTTPCookie(properties: [.domain: "#a.b.c", .path: "/", .name: "do", .value: "v"]))
        XCTAssertNil(NetscapeCookieLine.line(for: made))
        let fine = try XCTUnwrap(NetscapeCookieLine.cookie(from: ".a.b.c\tTRUE\t/\tFALSE\t0\tdo\tv"))
        XCTAssertEqual(NetscapeCookieLine.line(for: fine), ".a.b.c\tTRUE\t/\tFALSE\t0\tdo\tv")
    }

    /// Found by HeaderLines (Fuzz/Corpus/HeaderLines/regression-combining-mark-after-slash): a
    /// status line whose "HTTP/" is followed by bytes that decode to a combining mark. The
    /// parser was right (it reads bytes); the target's check was wrong, since String's
    /// `hasPrefix` compares characters and "/" with a combining mark is not the character "/".
    /// The head keeps its status line byte for byte, as decoded, and its one field.
    func testThatAStatusLineWithACombiningMarkAfterTheSlashIsKeptAsSent() throws {
        var parser = ResponseHeadParser()
        let status: [UInt8] = Array("HTTP/".utf8) + [0xCC, 0xB4, 0x20] + Array("200 OK\r\n".utf8)
        XCTAssertNil(status.withUnsafeBytes { parser.consume($0) })
        XCTAssertNil(parser.consume("X-Field: kept\r\n"))
        let head = try XCTUnwrap(parser.consume("\r\n"))
        XCTAssertEqual(Array(head.statusLine.utf8), Array(status.dropLast(2)))
        XCTAssertFalse(head.statusLine.hasPrefix("HTTP/"), "why the check compares bytes")
        XCTAssertEqual(head.headerBlock.value(of: "X-Field"), "kept")
    }
}
