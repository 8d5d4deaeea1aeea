import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier get -c`, `--retry` and `--timeout`: interrupted downloads resumed, flaky servers
/// retried with backoff and Retry-After, stalls timed out.
final class GetResumeAndRetryTests: ServerTestCase {
    func testThatAnInterruptedDownloadIsResumedWithContinue() throws {
        let directory = try makeTemporaryDirectory()
        let size = 2_000_000
        let sent = 700_000
        // The first request stalls after `sent` bytes; later ones get the whole file, or a Range.
        let url = server.url(.stallMidBodyTimes(key: UUID().uuidString, count: 1, bytes: size, sent: sent))
        let name = url.lastPathComponent
        let first = try CourierBinary.run(["get", "-c", "--timeout", "0.5", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(first.status, 1, first.transcript)
        XCTAssertTrue(first.standardOutput.contains("The request timed out"), first.transcript)
        XCTAssertEqual(try fileNames(in: directory), [name + ".part"], "only the part, nothing at the name")
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent(name + ".part")).count, sent)

        let second = try CourierBinary.run(["get", "-c", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(second.status, 0, second.transcript)
        XCTAssertEqual(server.recordedRequests.last?.header("Range"), "bytes=\(sent)-")
        XCTAssertTrue(second.standardOutput.contains("ok   206"), second.transcript)
        XCTAssertTrue(second.standardOutput.contains("(resumed from \(sent) B)"), second.transcript)
        XCTAssertEqual(try fileNames(in: directory), [name])
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent(name)), TestServer.deterministicBytes(count: size))
    }

    func testThatWithoutContinueAFailedDownloadLeavesNothing() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.stallMidBodyTimes(key: UUID().uuidString, count: 1, bytes: 100_000, sent: 40_000))
        let run = try CourierBinary.run(["get", "--timeout", "0.5", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "no file and no .part")
    }

    func testThatARetryAfterADropResumesWhereTheLastTryStopped() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.stallMidBodyTimes(key: UUID().uuidString, count: 1, bytes: 500_000, sent: 200_000))
        let run = try CourierBinary.run(
            ["get", "--retry", "2", "--timeout", "0.5", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(server.requestsReceived, 2)
        XCTAssertEqual(server.recordedRequests.last?.header("Range"), "bytes=200000-")
        XCTAssertTrue(run.standardOutput.contains("(after 2 tries, resumed from 200000 B)"), run.transcript)
        XCTAssertTrue(run.standardError.contains("retry 1/2 in 1.0 s: \(url.absoluteString): The request timed out"))
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent(url.lastPathComponent)),
            TestServer.deterministicBytes(count: 500_000))
    }

    func testThatAFlakyServerIsRetriedAsItsRetryAfterSays() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.statusTimes(key: UUID().uuidString, count: 2, status: 503, retryAfter: 1))
        let started = Date()
        let run = try CourierBinary.run(["get", "--retry", "3", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2, "two waits of Retry-After: 1")
        XCTAssertEqual(server.requestsReceived, 3)
        XCTAssertTrue(run.standardError.contains("retry 1/3 in 1.0 s: \(url.absoluteString): 503 Service Unavailable"))
        XCTAssertTrue(run.standardError.contains("retry 2/3 in 1.0 s: "), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("(after 3 tries)"), run.transcript)
        let saved = try Data(contentsOf: directory.appendingPathComponent(url.lastPathComponent))
        XCTAssertEqual(String(decoding: saved, as: UTF8.self), "ok", "the success, not an error page")
    }

    func testThatRetriesRunOutAndTheLastErrorIsReported() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.statusTimes(key: UUID().uuidString, count: 5, status: 502, retryAfter: 0))
        let run = try CourierBinary.run(["get", "--retry", "1", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertEqual(server.requestsReceived, 2, "one try and one retry")
        XCTAssertTrue(run.standardOutput.contains("failed: \(url.absoluteString): 502 Bad Gateway"), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "an error page is never saved")
    }

    func testThatA404IsNotRetried() throws {
        let url = server.url(.status(404)).absoluteString
        let run = try CourierBinary.run(["get", "--retry", "3", "-o", try makeTemporaryDirectory().path, url])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertEqual(server.requestsReceived, 1)
        XCTAssertFalse(run.standardError.contains("retry"), run.transcript)
    }

    func testThatATimeoutFailsTheTransferInTime() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.stall).absoluteString
        let started = Date()
        let run = try CourierBinary.run(["get", "--timeout", "0.5", "-o", directory.path, url], timeout: 10)
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertTrue(
            run.standardOutput.contains("failed: \(url): The request timed out: No progress for 0.5 seconds"),
            run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [])
    }
}
