import CourierTestServer
import CourierTestSupport
import XCTest

/// What `courier get` refuses to do whatever the server says: write outside its folder, save a
/// body it could not decode, or print a password.
final class GetSafetyTests: ServerTestCase {
    func testThatHostileContentDispositionNamesStayInsideTheFolder() throws {
        let parent = try makeTemporaryDirectory()
        let directory = parent.appendingPathComponent("downloads")
        let offered: [(header: String, expected: String)] = [
            ("attachment; filename=\"../../evil.txt\"", "evil.txt"),
            ("attachment; filename=\"/etc/passwd\"", "passwd"),
            ("attachment; filename*=UTF-8''..%2F..%2Fescaped.txt", "escaped.txt"),
            ("attachment; filename=\"..\\\\..\\\\windows.ini\"", "windows.ini"),
            ("attachment; filename=\"..\"", "headers"),
            ("attachment; filename=\".bashrc\"", "headers"),
            ("inline; filename=\"report 2026.pdf\"", "report 2026.pdf"),
        ]
        for (header, expected) in offered {
            let url = server.url(.headers(["Content-Disposition": header])).absoluteString
            let run = try CourierBinary.run(["get", "--content-disposition", "-o", directory.path, url])
            XCTAssertEqual(run.status, 0, run.transcript)
            XCTAssertTrue(
                run.standardOutput.contains(" -> \(directory.path)/\(expected)\n"), "\(header): \(run.transcript)")
            XCTAssertEqual(try fileNames(in: parent), ["downloads"], "nothing written beside the folder")
            try FileManager.default.removeItem(at: directory.appendingPathComponent(expected))
        }
        XCTAssertEqual(try fileNames(in: directory), [])
    }

    func testThatACorruptGzipBodyFailsAndLeavesNothing() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.corruptGzip).absoluteString
        let run = try CourierBinary.run(["get", "-o", directory.path, url])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("failed: \(url): "), run.transcript)
        XCTAssertTrue(
            run.standardOutput.lowercased().contains("decompress") || run.standardOutput.contains("inflat"),
            run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "no empty file, no .part")
    }

    func testThatPasswordsNeverAppearEvenInTheDebugLog() throws {
        let directory = try makeTemporaryDirectory()
        // Credentials in the URL are presented before any challenge: the log shows the request.
        let inURL = "http://ada:urlsecret@127.0.0.1:\(server.port)/bytes/10"
        let run = try CourierBinary.run(["get", "-v", "-o", directory.path, inURL])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardError.contains("* "), "the debug log is on: \(run.transcript)")
        XCTAssertFalse(run.transcript.contains("urlsecret"), run.transcript)
        XCTAssertFalse(run.transcript.contains(Data("ada:urlsecret".utf8).base64EncodedString()), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("http://ada:***@127.0.0.1"), run.transcript)

        let flag = server.url(.basicAuth(user: "bob", password: "flagsecret")).absoluteString
        let withFlag = try CourierBinary.run(["get", "-v", "-u", "bob:flagsecret", "-o", directory.path, flag])
        XCTAssertEqual(withFlag.status, 0, withFlag.transcript)
        XCTAssertFalse(withFlag.transcript.contains("bob:flagsecret"), withFlag.transcript)
        XCTAssertFalse(
            withFlag.transcript.contains(Data("bob:flagsecret".utf8).base64EncodedString()), withFlag.transcript)
    }
}
