import CourierTestServer
import CourierTestSupport
import XCTest

/// Running `courier get` again over what an earlier run saved: `-c` and `--cache` skip what is
/// done instead of saving `NAME (1)` copies, and names get no needless " (n)".
final class GetRerunTests: ServerTestCase {
    func testThatContinueSkipsAFileThatIsAlreadyComplete() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.bytes(300_000))
        let first = try CourierBinary.run(["get", "--no-progress", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(first.status, 0, first.transcript)
        server.resetRecords()

        let again = try CourierBinary.run(["get", "--no-progress", "-c", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(again.status, 0, again.transcript)
        XCTAssertTrue(
            again.standardOutput.contains(" -> \(directory.path)/300000 (already complete)\n"), again.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["300000"], "no copy, no .part")
        XCTAssertEqual(server.recordedRequests.map(\.method), ["HEAD"], "nothing downloaded again")
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("300000")),
            TestServer.deterministicBytes(count: 300_000))
    }

    func testThatContinueDownloadsAFileOfAnotherLengthUnderAFreeName() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.bytes(300_000))
        _ = try directory.writeFile("300000", Data("something else".utf8))
        let run = try CourierBinary.run(["get", "--no-progress", "-c", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains(" -> \(directory.path)/300000 (1)\n"), run.transcript)
        XCTAssertEqual(
            try String(contentsOf: directory.appendingPathComponent("300000"), encoding: .utf8), "something else")
    }

    func testThatFailFastEndsARunWhoseCompleteFileIsStillBeingChecked() throws {
        let directory = try makeTemporaryDirectory()
        let closed = try TestServer()
        let refused = closed.url(.bytes(1)).absoluteString
        closed.stop()
        // Its HEAD takes 5 s to be answered: the refused URL fails long before.
        let slow = server.url(.delay(milliseconds: 5000))
        _ = try directory.writeFile(slow.lastPathComponent, Data("delayed 5000 ms".utf8))
        let started = Date()
        let run = try CourierBinary.run(
            ["get", "--no-progress", "-c", "--fail-fast", "-o", directory.path, slow.absoluteString, refused])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "the check was cancelled: \(run.transcript)")
        XCTAssertTrue(
            run.standardOutput.contains("failed: \(slow.absoluteString): Cancelled by --fail-fast"), run.transcript)
    }

    func testThatContinueCallsAWholePartFileAnsweredWith416AlreadyComplete() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.bytes(200_000))
        _ = try directory.writeFile("200000.part", TestServer.deterministicBytes(count: 200_000))
        let run = try CourierBinary.run(["get", "--no-progress", "-c", "-o", directory.path, url.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(server.recordedRequests.last?.header("Range"), "bytes=200000-")
        XCTAssertTrue(run.standardOutput.contains("ok   416"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains(" -> \(directory.path)/200000 (already complete)"), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["200000"])
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("200000")),
            TestServer.deterministicBytes(count: 200_000))
    }

    func testThatFilesAnsweredFromTheCacheLeaveNoDebrisAndNoCopies() throws {
        let directory = try makeTemporaryDirectory()
        let cache = try makeTemporaryDirectory()
        let fresh = server.url(.cacheable(version: "one", maxAge: 600)).absoluteString
        let stale = server.url(.cacheable(version: "two", maxAge: 0)).absoluteString
        let arguments = ["get", "--no-progress", "--cache", cache.path, "-o", directory.path, fresh, stale]
        for run in 1...3 {
            let result = try CourierBinary.run(arguments)
            XCTAssertEqual(result.status, 0, "run \(run): \(result.transcript)")
            if run > 1 {
                XCTAssertTrue(result.standardOutput.contains("/one (unchanged)\n"), "run \(run): \(result.transcript)")
                XCTAssertTrue(result.standardOutput.contains("/two (unchanged)\n"), "run \(run): \(result.transcript)")
            }
        }
        XCTAssertEqual(try fileNames(in: directory), ["one", "two"], "no NAME (n).part, no NAME (n)")
        XCTAssertEqual(
            server.recordedRequests.filter { $0.target.hasPrefix("/cacheable/one") }.count, 1, "fresh: not asked again")
        XCTAssertEqual(
            server.recordedRequests.filter { $0.target.hasPrefix("/cacheable/two") }.map { $0.header("If-None-Match") },
            [nil, "\"two\"", "\"two\""], "stale: revalidated")
        let mask = umask(0o022)
        umask(mask)
        for name in ["one", "two"] {
            let mode =
                try FileManager.default.attributesOfItem(
                    atPath: directory.appendingPathComponent(name).path)[.posixPermissions] as? Int
            XCTAssertEqual(mode, 0o666 & ~Int(mask), "\(name): the umask's mode, as any saved file")
        }
    }

    /// Ten runs, since the two downloads end in either order: the URL-named one ending first
    /// once took "headers (1)" (seen on CI), its name still held for the other's `.part`.
    func testThatContentDispositionNamesNeedNoSuffixInAnEmptyFolder() throws {
        let named = server.url(.headers(["Content-Disposition": "attachment; filename=\"a.txt\""])).absoluteString
        let unnamed = server.url(.headers(["X-Name": "none"])).absoluteString
        for round in 1...10 {
            let directory = try makeTemporaryDirectory()
            let run = try CourierBinary.run(
                ["get", "--no-progress", "--content-disposition", "-o", directory.path, named, unnamed])
            XCTAssertEqual(run.status, 0, "round \(round): \(run.transcript)")
            XCTAssertEqual(try fileNames(in: directory), ["a.txt", "headers"], "round \(round): \(run.transcript)")
        }
    }
}
