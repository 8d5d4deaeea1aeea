import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier get` against a `TestServer` in this process: files, names, result lines, exit status.
final class GetCommandTests: ServerTestCase {
    func testThatThreeURLsAreSavedWithTheirExactBytes() throws {
        let directory = try makeTemporaryDirectory()
        let sizes = [1000, 70_000, 2_000_000]
        let urls = sizes.map { server.url(.bytes($0)).absoluteString }
        let run = try CourierBinary.run(["get", "-o", directory.path] + urls)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["1000", "2000000", "70000"], "no temporary file may remain")
        for size in sizes {
            let saved = try Data(contentsOf: directory.appendingPathComponent(String(size)))
            XCTAssertTrue(saved == TestServer.deterministicBytes(count: size), "the \(size)-byte file differs")
        }
        let lines = run.outputLines
        XCTAssertEqual(lines.count, 4, run.transcript)
        for (url, size) in zip(urls, sizes) {
            let line = lines.first { $0.hasSuffix("  \(url) -> \(directory.path)/\(size)") }
            XCTAssertNotNil(line, "no result line for \(url): \(run.transcript)")
            XCTAssertTrue(line?.hasPrefix("ok   200") == true, run.transcript)
            XCTAssertTrue(line?.contains(" \(size) B ") == true, run.transcript)
        }
        XCTAssertNotNil(
            lines.last?.wholeMatch(of: /3 URLs: 3 saved; 2071000 bytes in \d+\.\d{3} s \(.+\/s\)/),
            "summary: \(run.transcript)")
    }

    func testThatARefusedPortA404AndA401FailTheRunAndAreNamed() throws {
        let directory = try makeTemporaryDirectory()
        let closed = try TestServer()
        let refusedURL = closed.url(.bytes(10)).absoluteString
        closed.stop()
        let goodURL = server.url(.bytes(10)).absoluteString
        let missingURL = server.url(.status(404)).absoluteString
        let unauthorizedURL = server.url(.status(401)).absoluteString

        let run = try CourierBinary.run(
            ["get", "-o", directory.path, goodURL, refusedURL, missingURL, unauthorizedURL])
        XCTAssertEqual(run.status, 1, run.transcript)
        let lines = run.outputLines
        XCTAssertEqual(lines.count, 8, run.transcript)
        XCTAssertTrue(lines.contains { $0.hasPrefix("ok   200") && $0.contains(goodURL) }, run.transcript)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("FAIL \(refusedURL): A connection failure occurred") }, run.transcript)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("err  404") && $0.hasSuffix("\(missingURL) (not saved)") }, run.transcript)
        // No credentials for a 401: the request fails (ASI), its status kept.
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("FAIL 401") && $0.contains("\(unauthorizedURL): Authentication needed") },
            run.transcript)
        XCTAssertTrue(lines[4].hasPrefix("4 URLs: 1 saved, 3 failed; "), run.transcript)
        // Each failure with its reason, in the order given.
        XCTAssertTrue(lines[5].hasPrefix("failed: \(refusedURL): A connection failure occurred"), run.transcript)
        XCTAssertEqual(lines[6], "failed: \(missingURL): 404 Not Found", run.transcript)
        XCTAssertTrue(lines[7].hasPrefix("failed: \(unauthorizedURL): Authentication needed"), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["10"], "only the 200 is saved, and no .part is left")
    }

    func testThatAPasswordInAURLNeverAppearsInTheOutput() throws {
        let directory = try makeTemporaryDirectory()
        let closed = try TestServer()
        let refused = "http://alice:s3cret@127.0.0.1:\(closed.port)/x"
        closed.stop()
        let missing = "http://bob:hunter2@127.0.0.1:\(server.port)/status/404"
        let run = try CourierBinary.run(["get", "-o", directory.path, refused, missing])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertFalse(run.transcript.contains("s3cret"), run.transcript)
        XCTAssertFalse(run.transcript.contains("hunter2"), run.transcript)
        let lines = run.outputLines
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("failed: http://alice:***@127.0.0.1:\(closed.port)/x: A connection") },
            run.transcript)
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("FAIL http://alice:***@127.0.0.1:\(closed.port)/x: A connection failure") },
            run.transcript)
        XCTAssertTrue(
            lines.contains { $0.hasSuffix("http://bob:***@127.0.0.1:\(server.port)/status/404 (not saved)") },
            run.transcript)
    }

    func testThatRepeatedNamesAreMadeUnique() throws {
        let directory = try makeTemporaryDirectory()
        // Taken before the run: it is kept as it is, never overwritten.
        try Data("mine".utf8).write(to: directory.appendingPathComponent("1234"))
        let url = server.url(.bytes(1234)).absoluteString
        let chunkedURL = server.url(.chunked(1234)).absoluteString
        let run = try CourierBinary.run(["get", "-o", directory.path, url, url, chunkedURL])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["1234", "1234 (1)", "1234 (2)", "1234 (3)"])
        XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("1234")), Data("mine".utf8))
        for name in ["1234 (1)", "1234 (2)", "1234 (3)"] {
            XCTAssertEqual(
                try Data(contentsOf: directory.appendingPathComponent(name)), TestServer.deterministicBytes(count: 1234)
            )
            XCTAssertTrue(run.standardOutput.contains(" -> \(directory.path)/\(name)\n"), run.transcript)
        }
    }

    func testThatTheCurrentDirectoryIsTheDefaultAndAnIndexPageIsIndexHTML() throws {
        let directory = try makeTemporaryDirectory()
        // The echo route answers any path below /echo, so "/echo/" is an index page.
        let indexURL = server.url(path: "/echo/").absoluteString
        let run = try CourierBinary.run(["get", indexURL, indexURL], in: directory)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["index (1).html", "index.html"])
        XCTAssertTrue(run.standardOutput.contains("\(indexURL) -> ./index.html\n"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("\(indexURL) -> ./index (1).html\n"), run.transcript)
    }

    func testThatOneAtATimeRunsEveryRequest() throws {
        let directory = try makeTemporaryDirectory()
        let urls = (1...6).map { server.url(.bytes($0 * 100)).absoluteString }
        let run = try CourierBinary.run(["get", "-j", "1", "--output=\(directory.path)"] + urls)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory).count, 6)
        // One at a time, so they finish in the order they were given.
        let reported = run.outputLines.compactMap { line in urls.first { line.contains("  \($0) -> ") } }
        XCTAssertEqual(reported, urls, run.transcript)
    }

    func testThatAMissingOutputDirectoryIsCreated() throws {
        let directory = try makeTemporaryDirectory().appendingPathComponent("a/b")
        let run = try CourierBinary.run(["get", "-o", directory.path, server.url(.bytes(5)).absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["5"])
    }
}
