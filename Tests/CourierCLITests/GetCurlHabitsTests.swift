import CourierTestServer
import CourierTestSupport
import XCTest

/// What a curl or wget user types and expects: `-H 'Name:'`, a URL without a scheme,
/// `--timeout 0`, a list with a bad line, a `-v` that shows what went out, units that agree,
/// and a `--cacert` that is checked before anything is sent.
final class GetCurlHabitsTests: ServerTestCase {
    /// The echo route's reply: the headers the server received.
    private struct Echo: Decodable {
        let headers: [[String]]
        func values(_ name: String) -> [String] {
            headers.filter { $0.first?.lowercased() == name.lowercased() }.compactMap { $0.last }
        }
    }

    func testThatAnEmptyHeaderRemovesItAndASemicolonSendsItEmptyAsInCurl() throws {
        let url = server.url(.echo).absoluteString
        let run = try CourierBinary.run(
            ["get", "--no-progress", "-O", "-", "-H", "User-Agent:", "-H", "X-Empty;", "-H", "X-Gone:", url])
        XCTAssertEqual(run.status, 0, run.transcript)
        let echo = try JSONDecoder().decode(Echo.self, from: run.standardOutputData)
        XCTAssertEqual(echo.values("User-Agent"), [], "\(echo.headers)")
        XCTAssertEqual(echo.values("X-Empty"), [""], "\(echo.headers)")
        XCTAssertEqual(echo.values("X-Gone"), [], "\(echo.headers)")
    }

    func testThatVerboseShowsHostAndAcceptAndCallsARedirectHopARedirect() throws {
        let url = server.url(.redirect(302, to: "/bytes/10")).absoluteString
        let run = try CourierBinary.run(["get", "-v", "--no-progress", "-o", try makeTemporaryDirectory().path, url])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardError.contains("Host: 127.0.0.1:\(server.port)"), run.transcript)
        XCTAssertTrue(run.standardError.contains("Accept: */*"), run.transcript)
        XCTAssertTrue(run.standardError.contains("/bytes/10 (redirect 1)"), run.transcript)
        XCTAssertFalse(run.standardError.contains("(attempt 2)"), run.transcript)
    }

    func testThatACancelledTransferShowsTheTimeItRan() throws {
        let closed = try TestServer()
        let refused = closed.url(.bytes(1)).absoluteString
        closed.stop()
        // 2,000 bytes, one every 5 ms: still running when the refused one fails.
        let slow = server.url(.trickle(2000, intervalMilliseconds: 5)).absoluteString
        let run = try CourierBinary.run(
            ["get", "--no-progress", "--fail-fast", "-o", try makeTemporaryDirectory().path, slow, refused])
        XCTAssertEqual(run.status, 1, run.transcript)
        let line = try XCTUnwrap(run.outputLines.first { $0.contains("Cancelled by --fail-fast") }, run.transcript)
        XCTAssertFalse(line.contains(" 0.000 s"), line)
        XCTAssertFalse(line.contains("- B/s"), line)
    }

    func testThatTheSummaryCountsTheBytesTheBarCounts() throws {
        let url = server.url(.gzipped(200_000)).absoluteString
        let run = try CourierBinary.run(["get", "--no-progress", "-o", try makeTemporaryDirectory().path, url])
        XCTAssertEqual(run.status, 0, run.transcript)
        // The file is 200000 bytes once decoded; fewer came off the network, and the bar counts those.
        let received = try XCTUnwrap(
            run.standardOutput.firstMatch(of: /ok   200 +200000 B .*\((\d+) B received\)/).flatMap { Int($0.1) },
            run.transcript)
        XCTAssertLessThan(received, 200_000)
        XCTAssertTrue(run.standardOutput.contains("1 URL: 1 saved; \(received) bytes in "), run.transcript)
    }

    func testThatAURLWithoutASchemeIsTakenAsHTTP() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(
            ["get", "--no-progress", "-o", directory.path, "127.0.0.1:\(server.port)/bytes/10"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("http://127.0.0.1:\(server.port)/bytes/10 -> "), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["10"])
    }

    func testThatTimeoutZeroWaitsForever() throws {
        let directory = try makeTemporaryDirectory()
        // A response that takes longer than the 10 s default would be slow for a test; what is
        // checked is that 0 is taken, as curl's --max-time 0 and wget's --timeout=0 are.
        let url = server.url(.delay(milliseconds: 300)).absoluteString
        let run = try CourierBinary.run(["get", "--no-progress", "--timeout", "0", "-o", directory.path, url])
        XCTAssertEqual(run.status, 0, run.transcript)
    }

    func testThatABadLineInAListIsReportedAndTheOthersAreFetched() throws {
        let directory = try makeTemporaryDirectory()
        let list = directory.appendingPathComponent("urls.txt")
        let good = server.url(.bytes(11)).absoluteString
        try Data("\(good)\nnot a url\n\(server.url(.bytes(12)).absoluteString)\n".utf8).write(to: list)
        let output = directory.appendingPathComponent("out")
        let run = try CourierBinary.run(["get", "--no-progress", "-i", list.path, "-o", output.path])
        XCTAssertEqual(run.status, 1, "a skipped line fails the run: \(run.transcript)")
        XCTAssertTrue(
            run.standardError.contains("skipped \(list.path), line 2: not an http or https URL"), run.transcript)
        XCTAssertEqual(try fileNames(in: output), ["11", "12"])
    }

    func testThatACACertThatIsNotPEMIsRefusedAtStartUp() throws {
        let notPEM = try makeTemporaryDirectory().writeFile("hostname", Data("builder\n".utf8))
        let run = try CourierBinary.run(["get", "--cacert", notPEM, "https://127.0.0.1:\(server.port)/bytes/1"])
        XCTAssertEqual(run.status, 2, run.transcript)
        XCTAssertTrue(run.standardError.contains("--cacert: \(notPEM) is not a PEM CA bundle"), run.transcript)
        XCTAssertEqual(server.requestsReceived, 0, "nothing was sent")
    }
}
