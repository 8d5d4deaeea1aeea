import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `--checksum` and `--checksums`: a download whose bytes hash to something else fails, and
/// nothing is left under its name. The expected digests come from the system's `sha256sum` and
/// `md5sum`, not from courier's own code.
final class GetChecksumTests: ServerTestCase {
    func testThatAMatchingSHA256SavesAndAMismatchLeavesNothing() throws {
        let directory = try makeTemporaryDirectory()
        let digest = try systemDigest("sha256sum", of: TestServer.deterministicBytes(count: 70_000))
        let url = server.url(.bytes(70_000)).absoluteString

        let good = try CourierBinary.run([
            "get", "--checksum", "sha-256=\(digest.uppercased())", "-o", directory.path, url,
        ])
        XCTAssertEqual(good.status, 0, good.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["70000"])

        let other = try makeTemporaryDirectory()
        let wrong = String(digest.reversed())
        let bad = try CourierBinary.run(["get", "--checksum", "sha256=\(wrong)", "-o", other.path, url])
        XCTAssertEqual(bad.status, 1, bad.transcript)
        XCTAssertEqual(try fileNames(in: other), [], "nothing may stay at the name, nor a .part")
        XCTAssertTrue(
            bad.outputLines.contains {
                $0.hasPrefix("FAIL 200") && $0.contains("sha-256 mismatch: expected \(wrong), got \(digest); not saved")
            },
            bad.transcript)
    }

    func testThatChecksumsFilesInBothFormatsCheckEachDownloadByName() throws {
        let directory = try makeTemporaryDirectory()
        let lists = try makeTemporaryDirectory()
        let good = try systemDigest("md5sum", of: TestServer.deterministicBytes(count: 1000))
        let corrupt = try systemDigest("md5sum", of: Data("something else".utf8))
        let sums = try lists.writeFile("MD5SUMS", Data("\(good)  1000\n\(corrupt) *./2000\n".utf8))
        let unlisted = server.url(.bytes(3000)).absoluteString
        let urls = [1000, 2000].map { server.url(.bytes($0)).absoluteString } + [unlisted]
        let run = try CourierBinary.run(["get", "--checksums", sums, "-o", directory.path] + urls)
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["1000"])
        XCTAssertTrue(run.standardOutput.contains("md5 mismatch: expected \(corrupt)"), run.transcript)
        XCTAssertTrue(run.standardOutput.contains("\(unlisted): \(sums) lists no 3000 (--checksums)"), run.transcript)

        let sha = try systemDigest("sha256sum", of: TestServer.deterministicBytes(count: 2000))
        let shaList = try lists.writeFile("SHA256SUMS", Data("SHA256 (2000) = \(sha)\n".utf8))
        let second = try CourierBinary.run(["get", "--checksums", shaList, "-o", directory.path, urls[1]])
        XCTAssertEqual(second.status, 0, second.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["1000", "2000"])
    }

    func testThatABadChecksumArgumentOrListIsAUsageError() throws {
        let lists = try makeTemporaryDirectory()
        let url = server.url(.bytes(10)).absoluteString
        let garbled = try lists.writeFile("SUMS", Data("not a checksum line\n".utf8))
        let cases: [([String], String)] = [
            (["--checksum", "sha-256=abc", url], "is not a sha-256 digest"),
            (["--checksum", "crc32=abcd", url], "--checksum needs sha-256=HEX or md5=HEX"),
            (["--checksum", "md5=" + String(repeating: "0", count: 32), url, url], "--checksum is for one URL"),
            (["--checksums", garbled, url], "SUMS, line 1: not \"HEX  NAME\""),
        ]
        for (arguments, message) in cases {
            let run = try CourierBinary.run(["get", "-o", lists.path] + arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.contains(message), "\(arguments): \(run.transcript)")
        }
        XCTAssertEqual(server.recordedRequests.count, 0)
    }

    /// The digest `tool` (sha256sum, md5sum) prints for `data`.
    private func systemDigest(_ tool: String, of data: Data) throws -> String {
        let directory = try makeTemporaryDirectory()
        let path = try directory.writeFile("input", data)
        let run = try Tool.run(URL(fileURLWithPath: "/usr/bin/\(tool)"), [path])
        XCTAssertEqual(run.status, 0)
        return String(run.text.prefix { !$0.isWhitespace })
    }
}
