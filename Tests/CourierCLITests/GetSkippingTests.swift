import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `--no-clobber` and `-N`: a re-run skips what is there instead of saving a second copy.
final class GetSkippingTests: ServerTestCase {
    func testThatNoClobberSkipsATakenNameWithoutARequest() throws {
        let directory = try makeTemporaryDirectory()
        try Data("mine".utf8).write(to: directory.appendingPathComponent("700"))
        let taken = server.url(.bytes(700)).absoluteString
        let free = server.url(.bytes(800)).absoluteString
        let run = try CourierBinary.run(["get", "--no-clobber", "-o", directory.path, taken, free])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["700", "800"], "no \"700 (1)\" beside the kept file")
        XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("700"), encoding: .utf8), "mine")
        XCTAssertEqual(server.recordedRequests.map(\.target), ["/bytes/800"])
        XCTAssertTrue(
            run.outputLines.contains("skip \(taken) -> \(directory.path)/700 (exists; --no-clobber)"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("2 URLs: 1 saved, 1 skipped;"), run.transcript)
    }

    func testThatTimestampingFetchesOnlyWhatIsNewerAndKeepsTheServersTime() throws {
        let directory = try makeTemporaryDirectory()
        let modified = 1_700_000_000
        let url = server.url(.lastModified(modified)).absoluteString
        let file = directory.appendingPathComponent(String(modified))

        // No file yet: fetched, and given the server's time.
        let first = try CourierBinary.run(["get", "-N", "-o", directory.path, url])
        XCTAssertEqual(first.status, 0, first.transcript)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "modified at \(modified)")
        XCTAssertEqual(try modificationTime(of: file), modified)
        XCTAssertNil(server.recordedRequests.last?.header("If-Modified-Since"))

        // The same time: a 304, the file kept, no second copy.
        let second = try CourierBinary.run(["get", "-N", "-o", directory.path, url])
        XCTAssertEqual(second.status, 0, second.transcript)
        XCTAssertEqual(server.recordedRequests.last?.header("If-Modified-Since"), "Tue, 14 Nov 2023 22:13:20 GMT")
        XCTAssertTrue(
            second.outputLines.contains("skip \(url) -> \(directory.path)/\(modified) (not modified)"),
            second.transcript)
        XCTAssertEqual(try fileNames(in: directory), [String(modified)])

        // An older local copy: replaced by the server's, under the same name.
        try Data("old".utf8).write(to: file)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: TimeInterval(modified - 3600))], ofItemAtPath: file.path)
        let third = try CourierBinary.run(["get", "-N", "-o", directory.path, url])
        XCTAssertEqual(third.status, 0, third.transcript)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "modified at \(modified)")
        XCTAssertEqual(try modificationTime(of: file), modified)
        XCTAssertEqual(try fileNames(in: directory), [String(modified)])
    }

    func testThatNoClobberAndTimestampingRefuseFlagsThatContradictThem() throws {
        let url = server.url(.bytes(10)).absoluteString
        for arguments in [
            ["--no-clobber", "--force"], ["--no-clobber", "-N"], ["-N", "-O", "-"], ["-N", "--cache", "/tmp/x"],
        ] {
            let run = try CourierBinary.run(["get"] + arguments + [url])
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
        }
        XCTAssertEqual(server.recordedRequests.count, 0)
    }

    private func modificationTime(of file: URL) throws -> Int {
        let date = try XCTUnwrap(
            try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date)
        return Int(date.timeIntervalSince1970)
    }
}
