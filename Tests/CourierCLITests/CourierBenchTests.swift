import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `courier-bench`, the interface any benchmark harness drives (issue 9): its one result line,
/// its exit status, each command and flag, against a `TestServer` over loopback.
final class CourierBenchTests: ServerTestCase {
    private func bench(_ arguments: [String]) throws -> CLIRun {
        try CourierBinary.run(arguments, timeout: 60, executable: "courier-bench")
    }

    /// The fields of an `ok …` or `fail …` line, after checking its exact shape.
    private func fields(of line: String, file: StaticString = #filePath, line number: UInt = #line) -> [String: String]
    {
        let shape = #/^(ok|fail) requests=\d+ bytes=\d+ errors=\d+ wall=\d+\.\d{3}( queued_kib=-?\d+)?$/#
        XCTAssertNotNil(line.wholeMatch(of: shape), "not a result line: \(line)", file: file, line: number)
        var fields = ["status": String(line.prefix { $0 != " " })]
        for pair in line.split(separator: " ").dropFirst() {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    func testThatGetRunsEveryRequestInEachCallbackForm() throws {
        let url = server.url(.bytes(1000)).absoluteString
        for flags in [[], ["--blocks"], ["--delegate"], ["--sync"], ["--accurate-progress"]] {
            let run = try bench(["get", url, "40", "4"] + flags)
            XCTAssertEqual(run.status, 0, "\(flags): \(run.transcript)")
            XCTAssertEqual(run.outputLines.count, 1, run.transcript)
            let result = fields(of: run.outputLines.first ?? "")
            XCTAssertEqual(result["status"], "ok", "\(flags)")
            XCTAssertEqual(result["requests"], "40", "\(flags)")
            XCTAssertEqual(result["bytes"], "40000", "\(flags)")
            XCTAssertEqual(result["errors"], "0", "\(flags)")
        }
        // --accurate-progress: a HEAD first for each GET added before the queue started (the
        // first 2×C); as in ASI, GETs added later learn their size from their own headers.
        let heads = server.recordedRequests.filter { $0.method == "HEAD" }.count
        XCTAssertEqual(heads, 8)
        XCTAssertEqual(server.recordedRequests.filter { $0.method == "GET" }.count, 5 * 40)
    }

    /// The same-work C baseline (Benchmarks/baselines/curl-multi.c, BENCH_SAME_WORK=1) sends these
    /// two lines because Courier does: courier-bench must not turn them off.
    func testThatGetSendsCourierDefaultHeaderLines() throws {
        let run = try bench(["get", server.url(.bytes(10)).absoluteString, "2", "2"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let request = try XCTUnwrap(server.recordedRequests.last)
        XCTAssertEqual(request.header("Accept-Encoding"), "gzip, deflate")
        XCTAssertEqual(request.header("User-Agent"), "Courier/0.1.0 (Linux)")
    }

    func testThatQueuedRunsEveryRequestAfterReportingWhatTheQueueHeld() throws {
        let run = try bench(["queued", server.url(.bytes(1000)).absoluteString, "300", "4"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(run.outputLines.count, 1, run.transcript)
        let result = fields(of: run.outputLines.first ?? "")
        XCTAssertEqual(result["requests"], "300")
        XCTAssertEqual(result["bytes"], "300000")
        // 300 request objects take more than a page; the bound above is loose (first-use costs and
        // malloc's arenas weigh on so few): Benchmarks/run.sh measures issue 23's 4 KiB each over 10,000.
        let queued = try XCTUnwrap(result["queued_kib"].flatMap { Int($0) }, run.transcript)
        XCTAssertGreaterThan(queued, 4)
        XCTAssertLessThanOrEqual(queued, 300 * 16)
        XCTAssertEqual(server.recordedRequests.filter { $0.method == "GET" }.count, 300)
    }

    func testThatFailedRequestsMakeAFailLineTheFirstErrorAndExitStatusOne() throws {
        let run = try bench(["get", server.url(.status(404)).absoluteString, "6", "3"])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertEqual(run.outputLines.count, 2, run.transcript)
        let result = fields(of: run.outputLines.first ?? "")
        XCTAssertEqual(result["status"], "fail")
        XCTAssertEqual(result["requests"], "6")
        XCTAssertEqual(result["errors"], "6")
        XCTAssertEqual(run.outputLines.last, "HTTP 404")

        let refused = try bench(["get", "http://127.0.0.1:1/", "2", "2"])
        XCTAssertEqual(refused.status, 1, refused.transcript)
        XCTAssertEqual(fields(of: refused.outputLines.first ?? "")["errors"], "2")
        XCTAssertTrue(refused.outputLines.last?.contains("127.0.0.1") == true, refused.transcript)
    }

    func testThatDownloadWritesTheBodyToTheFileAndUploadStreamsTheFile() throws {
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("download")
        let download = try bench(["download", server.url(.bytes(3_000_000)).absoluteString, file.path])
        XCTAssertEqual(download.status, 0, download.transcript)
        XCTAssertEqual(fields(of: download.outputLines.first ?? "")["bytes"], "3000000")
        XCTAssertEqual(try Data(contentsOf: file), TestServer.deterministicBytes(count: 3_000_000))

        let upload = try bench(["upload", server.url(.echo).absoluteString, file.path])
        XCTAssertEqual(upload.status, 0, upload.transcript)
        XCTAssertEqual(fields(of: upload.outputLines.first ?? "")["bytes"], "3000000")
        let received = try XCTUnwrap(server.recordedRequests.last)
        XCTAssertEqual(received.method, "PUT")
        XCTAssertEqual(received.body, TestServer.deterministicBytes(count: 3_000_000))
    }

    func testThatSignReportsTheCPUTimeOfASignAndOfAPresign() throws {
        let shape = #/^ok signs=(\d+) sign_ns=(\d+) presign_ns=(\d+)$/#
        for (flags, signs, presigns) in [
            ([], true, true), (["--sign-only"], true, false), (["--presign-only"], false, true),
        ] {
            let run = try bench(["sign", "200"] + flags)
            XCTAssertEqual(run.status, 0, "\(flags): \(run.transcript)")
            XCTAssertEqual(run.outputLines.count, 1, run.transcript)
            let match = try XCTUnwrap(run.outputLines.first?.wholeMatch(of: shape), run.transcript)
            XCTAssertEqual(match.1, "200")
            // A part that ran took some time; one that did not says 0.
            XCTAssertEqual(Int(match.2).map { $0 > 0 }, signs, "\(flags): \(run.transcript)")
            XCTAssertEqual(Int(match.3).map { $0 > 0 }, presigns, "\(flags): \(run.transcript)")
        }
        for arguments in [
            ["sign"], ["sign", "0"], ["sign", "5", "--sign-only", "--presign-only"], ["sign", "5", "--fast"],
        ] {
            let run = try bench(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.contains("courier-bench sign N"), run.transcript)
            XCTAssertEqual(run.standardOutput, "", "\(arguments)")
        }
    }

    func testThatABadCommandLineExitsWithStatusTwoAndTheUsage() throws {
        let url = server.url(.bytes(10)).absoluteString
        for arguments in [
            [], ["get", url], ["get", url, "0", "1"], ["get", url, "1", "1", "--fast"],
            ["fetch", url], ["download", url], ["get", "not a url", "1", "1"], ["queued", url, "1"],
        ] {
            let run = try bench(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.contains("usage: courier-bench get URL N C"), run.transcript)
            XCTAssertEqual(run.standardOutput, "", "\(arguments)")
        }
        XCTAssertEqual(server.recordedRequests.count, 0, "nothing is sent for a bad command line")
    }
}
