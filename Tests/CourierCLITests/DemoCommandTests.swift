import CourierTestSupport
import XCTest

/// `courier demo`: a server in the child process, a batch through `get`'s code path, verified.
final class DemoCommandTests: XCTestCase {
    func testThatTheDemoFetchesEveryRouteAndVerifiesIt() throws {
        let started = Date()
        let run = try CourierBinary.run(["demo"], timeout: 30)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        let output = run.standardOutput
        XCTAssertNotNil(output.firstMatch(of: /TestServer listening on http:\/\/127\.0\.0\.1:\d+/), run.transcript)
        for route in ["/bytes/1024", "/bytes/65536", "/bytes/1048576", "/bytes/10485760", "/chunked/100000"] {
            XCTAssertTrue(output.contains("ok   200"), run.transcript)
            XCTAssertTrue(output.contains(route + " -> "), "\(route) not fetched: \(run.transcript)")
        }
        XCTAssertTrue(output.contains("POST http://127.0.0.1:"), run.transcript)
        XCTAssertTrue(output.contains("/echo -> "), run.transcript)
        XCTAssertTrue(output.contains("10 URLs: 10 saved; "), run.transcript)
        for line in [
            "verified 10485760 bytes (10485760): 10485760 B == TestServer.deterministicBytes(count: 10485760)",
            "verified a redirect (302): 50000 B == TestServer.deterministicBytes(count: 50000)",
            "verified a gzip-encoded body (200000): 200000 B == TestServer.deterministicBytes(count: 200000)",
            "verified a download that stalls and is resumed (1000000): 3000000 B == "
                + "TestServer.deterministicBytes(count: 3000000), resumed from 1000000 B",
            "verified a POST (echo): the server received the 64-byte POST body intact",
            "verified a form upload (echo (1)): the server received a 300364-byte multipart body with the field and "
                + "the 300000-byte file intact",
            "verified: all 10 responses are exactly what the server sent",
        ] {
            XCTAssertTrue(output.contains(line + "\n"), "missing \(line): \(run.transcript)")
        }
        XCTAssertTrue(run.standardError.contains("retry 1/2 in 1.0 s: "), "the stalled download was retried")
        XCTAssertFalse(output.contains("MISMATCH"), run.transcript)

        let removed = try XCTUnwrap(output.firstMatch(of: /removed (\S+)\n/), run.transcript)
        XCTAssertFalse(FileManager.default.fileExists(atPath: String(removed.1)), "the temporary directory is left")
    }

    func testThatTheDemoKeepsItsFilesInAGivenDirectory() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(["demo", "-o", directory.path, "-j", "2"], timeout: 30)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("at most 2 at a time"), run.transcript)
        XCTAssertEqual(
            try fileNames(in: directory),
            ["100000", "1000000", "1024", "1048576", "10485760", "200000", "302", "65536", "echo", "echo (1)"])
        XCTAssertFalse(run.standardOutput.contains("removed"), run.transcript)
    }
}
