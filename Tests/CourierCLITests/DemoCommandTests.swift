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
        XCTAssertTrue(output.contains("6 requests, "), run.transcript)
        XCTAssertTrue(output.contains("verified 10485760: 10485760 B == TestServer.deterministicBytes"), run.transcript)
        XCTAssertTrue(output.contains("verified: all 6 responses are exactly what the server sent"), run.transcript)
        XCTAssertFalse(output.contains("MISMATCH"), run.transcript)

        let removed = try XCTUnwrap(output.firstMatch(of: /removed (\S+)\n/), run.transcript)
        XCTAssertFalse(FileManager.default.fileExists(atPath: String(removed.1)), "the temporary directory is left")
    }

    func testThatTheDemoKeepsItsFilesInAGivenDirectory() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(["demo", "-o", directory.path, "-j", "2"], timeout: 30)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("at most 2 at a time"), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["100000", "1024", "1048576", "10485760", "65536", "echo"])
        XCTAssertFalse(run.standardOutput.contains("removed"), run.transcript)
    }
}
