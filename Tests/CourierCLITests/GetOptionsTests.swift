import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier get`'s options against the fixture server: what reaches the server, where the body
/// goes, and what is printed.
final class GetOptionsTests: ServerTestCase {
    func testThatNoHEADIsSentUnlessAccurateProgressIsAsked() throws {
        let urls = [server.url(.bytes(5000)).absoluteString, server.url(.bytes(6000)).absoluteString]
        let plain = try CourierBinary.run(["get", "-o", try makeTemporaryDirectory().path] + urls)
        XCTAssertEqual(plain.status, 0, plain.transcript)
        XCTAssertEqual(server.recordedRequests.map(\.method), ["GET", "GET"])
        // The bar's total grew from each response's Content-Length.
        XCTAssertTrue(plain.standardError.contains("11.0 kB / 11.0 kB"), plain.transcript)

        let accurate = try CourierBinary.run(["get", "--accurate", "-o", try makeTemporaryDirectory().path] + urls)
        XCTAssertEqual(accurate.status, 0, accurate.transcript)
        XCTAssertEqual(server.recordedRequests.dropFirst(2).map(\.method).sorted(), ["GET", "GET", "HEAD", "HEAD"])
    }

    func testThatCredentialsFromUserAnswerTheChallenge() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.basicAuth(user: "ada", password: "lovelace")).absoluteString
        let run = try CourierBinary.run(["get", "-u", "ada:lovelace", "-O", directory.path + "/me", url])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            try String(contentsOf: directory.appendingPathComponent("me"), encoding: .utf8), "You are ada by Basic")
        // (The route's own path names the password; what must never appear is what -u sent.)
        XCTAssertFalse(run.transcript.contains("ada:lovelace"), run.transcript)
        XCTAssertFalse(run.transcript.contains(Data("ada:lovelace".utf8).base64EncodedString()), run.transcript)

        let wrong = try CourierBinary.run(["get", "-u", "ada:babbage", "-o", directory.path, url])
        XCTAssertEqual(wrong.status, 1, wrong.transcript)
        XCTAssertTrue(wrong.standardOutput.contains("Authentication"), wrong.transcript)
        XCTAssertFalse(wrong.transcript.contains("babbage"), wrong.transcript)
    }

    func testThatAMissingPasswordIsAskedForOnTheTerminal() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.basicAuth(user: "ada", password: "lovelace")).absoluteString
        let run = try CourierBinary.runOnTerminal(
            ["get", "-u", "ada", "-o", directory.path, url], typing: "lovelace\n")
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.terminal.contains("Enter the password for ada: "), run.transcript)
        XCTAssertFalse(run.terminal.contains("lovelace"), "the password is not echoed: \(run.transcript)")
        XCTAssertEqual(try fileNames(in: directory).count, 1, run.transcript)

        let noTerminal = try CourierBinary.run(["get", "-u", "ada", "-o", directory.path, url])
        XCTAssertEqual(noTerminal.status, 2, noTerminal.transcript)
        XCTAssertTrue(noTerminal.standardError.contains("no terminal to ask for one"), noTerminal.transcript)
    }

    func testThatAProxyWithCredentialsIsUsedAndItsPasswordNeverShown() throws {
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pro", password: "xyzzy"))
        defer { proxy.stop() }
        let directory = try makeTemporaryDirectory()
        // The fixture proxy only proxies to itself: the origin is the proxy's own address.
        let url = proxy.url(.bytes(3000)).absoluteString
        let run = try CourierBinary.run(
            ["get", "--proxy", "http://pro:xyzzy@127.0.0.1:\(proxy.port)", "-o", directory.path, url],
            CourierBinary.Launch(environment: ["http_proxy": "", "HTTP_PROXY": "", "all_proxy": "", "ALL_PROXY": ""]))
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(proxy.recordedRequests.last?.target, url, "sent to the proxy in absolute form")
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("3000")), TestServer.deterministicBytes(count: 3000))
        XCTAssertFalse(run.transcript.contains("xyzzy"), run.transcript)
    }

    func testThatHeadersAndTheUserAgentAreSent() throws {
        let url = server.url(.bytes(10)).absoluteString
        let run = try CourierBinary.run(
            [
                "get", "-H", "X-Trace: 42", "-H", "Accept: text/plain", "-A", "fetcher/2.0", "-o",
                try makeTemporaryDirectory().path, url,
            ])
        XCTAssertEqual(run.status, 0, run.transcript)
        let request = try XCTUnwrap(server.recordedRequests.last)
        XCTAssertEqual(request.header("X-Trace"), "42")
        XCTAssertEqual(request.header("Accept"), "text/plain")
        XCTAssertEqual(request.header("User-Agent"), "fetcher/2.0")
    }

    func testThatOutputFileIsNotOverwrittenWithoutForce() throws {
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("mine.bin")
        try Data("keep me".utf8).write(to: file)
        let url = server.url(.bytes(100)).absoluteString
        let refused = try CourierBinary.run(["get", "-O", file.path, url])
        XCTAssertEqual(refused.status, 1, refused.transcript)
        XCTAssertTrue(refused.standardOutput.contains("mine.bin exists; --force replaces it"), refused.transcript)
        XCTAssertEqual(try Data(contentsOf: file), Data("keep me".utf8))
        XCTAssertEqual(server.requestsReceived, 0, "nothing is fetched for a file that would be thrown away")

        let forced = try CourierBinary.run(["get", "-O", file.path, "--force", url])
        XCTAssertEqual(forced.status, 0, forced.transcript)
        XCTAssertEqual(try Data(contentsOf: file), TestServer.deterministicBytes(count: 100))
        XCTAssertEqual(try fileNames(in: directory), ["mine.bin"])
    }

    func testThatADashWritesTheBodyToStandardOutputAndTheLinesToStandardError() throws {
        let url = server.url(.gzipped(50_000)).absoluteString
        let run = try CourierBinary.run(["get", "-O", "-", url])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutputData == TestServer.deterministicBytes(count: 50_000), "the decoded body")
        XCTAssertTrue(run.standardError.contains("ok   200"), run.transcript)
        XCTAssertTrue(run.standardError.contains("1 URL: 1 saved;"), run.transcript)
    }

    func testThatURLsAreReadFromAFileAndFromStandardInput() throws {
        let directory = try makeTemporaryDirectory()
        let list = directory.appendingPathComponent("urls.txt")
        let text =
            "# downloads\n\(server.url(.bytes(11)).absoluteString)\n\n  \(server.url(.bytes(12)).absoluteString)  \n"
        try Data(text.utf8).write(to: list)
        let output = directory.appendingPathComponent("out")
        let fromFile = try CourierBinary.run(["get", "-i", list.path, "-o", output.path])
        XCTAssertEqual(fromFile.status, 0, fromFile.transcript)
        XCTAssertEqual(try fileNames(in: output), ["11", "12"])

        let fromInput = try CourierBinary.run(
            ["get", "-i", "-", "-o", output.path, server.url(.bytes(13)).absoluteString],
            CourierBinary.Launch(standardInput: Data(text.utf8)))
        XCTAssertEqual(fromInput.status, 0, fromInput.transcript)
        XCTAssertEqual(try fileNames(in: output), ["11", "11 (1)", "12", "12 (1)", "13"])

        try Data("not a url\n# nothing else\n".utf8).write(to: list)
        let bad = try CourierBinary.run(["get", "-i", list.path, "-o", output.path])
        XCTAssertEqual(bad.status, 2, "a list with no URL at all is a usage error: \(bad.transcript)")
        XCTAssertTrue(bad.standardError.contains("urls.txt, line 1: not an http or https URL"), bad.transcript)
    }

    func testThatFailFastCancelsTheOthers() throws {
        let closed = try TestServer()
        let refused = closed.url(.bytes(1)).absoluteString
        closed.stop()
        let stalled = server.url(.stall).absoluteString
        let started = Date()
        let run = try CourierBinary.run(
            ["get", "--fail-fast", "-o", try makeTemporaryDirectory().path, stalled, refused], timeout: 20)
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the stalled transfer did not wait for its timeout")
        XCTAssertTrue(run.standardOutput.contains("failed: \(stalled): Cancelled by --fail-fast"), run.transcript)
    }

    func testThatMaxRedirsLimitsTheHops() throws {
        let twoHops = server.url(.redirect(302, to: server.url(.redirect(302, to: "/bytes/7")).absoluteString))
        let directory = try makeTemporaryDirectory()
        let limited = try CourierBinary.run(["get", "--max-redirs", "1", "-o", directory.path, twoHops.absoluteString])
        XCTAssertEqual(limited.status, 1, limited.transcript)
        XCTAssertTrue(limited.standardOutput.contains("redirected more than once"), limited.transcript)
        let enough = try CourierBinary.run(["get", "--max-redirs", "2", "-o", directory.path, twoHops.absoluteString])
        XCTAssertEqual(enough.status, 0, enough.transcript)
    }

    func testThatTheCacheAnswersASecondRun() throws {
        let directory = try makeTemporaryDirectory()
        let cache = directory.appendingPathComponent("cache").path
        let url = server.url(.cacheable(version: "1", maxAge: 600)).absoluteString
        for run in 1...2 {
            let result = try CourierBinary.run([
                "get", "--cache", cache, "-o", directory.appendingPathComponent("\(run)").path, url,
            ])
            XCTAssertEqual(result.status, 0, result.transcript)
        }
        XCTAssertEqual(server.requestsReceived, 1, "the second run was answered by the cache")
        let second = try String(contentsOf: directory.appendingPathComponent("2/1"), encoding: .utf8)
        XCTAssertEqual(second, "version 1")
    }
}
