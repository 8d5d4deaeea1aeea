import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `--max-time` and `--speed-limit`: a server that dribbles bytes (never quiet long enough for
/// `--timeout`) is given up on, reported as such, and not saved.
final class GetLimitTests: ServerTestCase {
    func testThatMaxTimeEndsATransferThatKeepsDribbling() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.trickle(1000, intervalMilliseconds: 200)).absoluteString
        let started = Date()
        let run = try CourierBinary.run(["get", "--max-time", "1.5", "-o", directory.path, url])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("Took more than 1.5 s in all (--max-time)"), run.transcript)
        XCTAssertGreaterThanOrEqual(elapsed, 1.5)
        XCTAssertLessThan(elapsed, 8, "the limit must act, not the server's 200 s")
        XCTAssertEqual(try fileNames(in: directory), [], "nothing saved, no .part kept without -c")
    }

    func testThatSpeedLimitEndsASlowTransferAndRetryTriesAgain() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.trickle(1000, intervalMilliseconds: 500)).absoluteString
        let started = Date()
        let run = try CourierBinary.run(
            ["get", "--speed-limit", "100", "--speed-time", "2", "--retry", "1", "-o", directory.path, url],
            timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(
            run.standardError.contains("retry 1/1 in 1.0 s: \(url): Slower than 100 bytes/s for 2 s"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("Slower than 100 bytes/s for 2 s (--speed-limit)"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("after 2 tries"), run.transcript)
        XCTAssertLessThan(elapsed, 15, run.transcript)
        XCTAssertEqual(server.recordedRequests.count, 2)
    }

    func testThatConnectTimeoutEndsAConnectionThatIsNeverAccepted() throws {
        let listener = try UnacceptingListener()
        defer { listener.close() }
        let url = "http://127.0.0.1:\(listener.port)/x"
        let started = Date()
        let run = try CourierBinary.run([
            "get", "--connect-timeout", "1", "--timeout", "20", "-o", try makeTemporaryDirectory().path, url,
        ])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("FAIL \(url): "), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("timed out"), run.transcript)
        XCTAssertGreaterThanOrEqual(elapsed, 1)
        XCTAssertLessThan(elapsed, 8, "the connect timeout must act, not --timeout's 20 s: \(run.transcript)")
    }

    func testThatATransferFasterThanTheLimitsIsSaved() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(
            [
                "get", "-m", "20", "--speed-limit", "1000", "--speed-time", "1", "-o", directory.path,
                server.url(.bytes(2_000_000)).absoluteString,
            ])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("2000000")),
            TestServer.deterministicBytes(count: 2_000_000))
    }
}

