import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `HTTPRequest.cookieFilePath`: one process stores cookies and exits; the file it leaves (whole,
/// 0600) gives the next process those cookies. Each process is a child running one test of this
/// bundle, since a cookie file is loaded once per process and saved at its exit.
final class CookieFileTests: XCTestCase {
    private static let pathVariable = "COURIER_TEST_COOKIE_FILE"
    private static let nameVariable = "COURIER_TEST_COOKIE_NAME"
    private static let testName = "CourierTests.CookieFileTests/testThatACookieFileGivesTheNextProcessItsCookies"

    func testThatACookieFileGivesTheNextProcessItsCookies() throws {
        switch ChildProcess.role {
        case "cookie-file-store": return try storeAndExit()
        case "cookie-file-read": return try readBack()
        default: break
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cookies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("jar.txt").path
        let name = "kept\(UUID().uuidString.prefix(8))"
        let environment = [Self.pathVariable: path, Self.nameVariable: name]

        let stored = try ChildProcess.run(test: Self.testName, role: "cookie-file-store", environment: environment)
        XCTAssertEqual(stored.status, 0, stored.output)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("# Netscape HTTP Cookie File"), text)
        XCTAssertTrue(text.contains("\t\(name)\tpersistent"), text)
        XCTAssertTrue(text.contains("\tsession-\(name)\ts"), "session cookies are saved too: \(text)")
        XCTAssertFalse(text.contains("gone-\(name)"), "expired cookies are not: \(text)")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path), ["jar.txt"], "no temporary file left")

        let read = try ChildProcess.run(test: Self.testName, role: "cookie-file-read", environment: environment)
        XCTAssertEqual(read.status, 0, read.output)
        let sent = try read.report("cookie-file-read").fields["sent"] ?? ""
        XCTAssertTrue(sent.contains("\(name)=persistent"), sent)
        XCTAssertTrue(sent.contains("session-\(name)=s"), sent)
    }

    /// The first child: cookies from a server (one that expires, one for the session, one already
    /// expired), then the process ends at once; the exit hook has to write them.
    private func storeAndExit() throws {
        let environment = ProcessInfo.processInfo.environment
        let path = try XCTUnwrap(environment[Self.pathVariable])
        let name = try XCTUnwrap(environment[Self.nameVariable])
        HTTPRequest.cookieFilePath = path
        let fields = ["\(name)=persistent; Max-Age=3600", "session-\(name)=s", "gone-\(name)=x; Max-Age=0"]
        let route = Route.headerFields(fields.map { HeaderField(name: "Set-Cookie", value: $0) })
        let request = HTTPRequest(url: URL(string: "http://file.localhost:\(Fixture.server.port)\(route.path)")!)
        request.startSynchronous()
        XCTAssertNil(request.error)
    }

    /// The second child: sends what the file holds.
    private func readBack() throws {
        HTTPRequest.cookieFilePath = try XCTUnwrap(ProcessInfo.processInfo.environment[Self.pathVariable])
        let request = HTTPRequest(url: URL(string: "http://file.localhost:\(Fixture.server.port)/echo")!)
        request.startSynchronous()
        XCTAssertNil(request.error)
        let sent = try Echo(from: request).headers(named: "Cookie").joined(separator: ";").replacingOccurrences(
            of: " ", with: "")
        ChildProcess.report(["sent": sent])
    }
}
