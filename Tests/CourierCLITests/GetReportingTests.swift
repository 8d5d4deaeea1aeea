import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// What `courier get` shows about what happened: response heads (`--include`, `-D`), the final
/// URL after redirects, and `--json` for scripts.
final class GetReportingTests: ServerTestCase {
    func testThatTheResultLineNamesTheURLARedirectEndedAt() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.redirect(302, to: "/bytes/700")).absoluteString
        let run = try CourierBinary.run(["get", "-o", directory.path, url])
        XCTAssertEqual(run.status, 0, run.transcript)
        let final = server.url(.bytes(700)).absoluteString
        XCTAssertTrue(
            run.outputLines.contains {
                $0.hasPrefix("ok   200") && $0.contains(" \(url) -> ") && $0.hasSuffix("(redirected to \(final))")
            },
            run.transcript)
        // A URL that was not redirected has no such note.
        let plain = try CourierBinary.run(["get", "-o", directory.path, final])
        XCTAssertFalse(plain.standardOutput.contains("redirected"), plain.transcript)
    }

    func testThatJSONGivesEveryURLItsFileStatusAndErrorOnStandardOutput() throws {
        let directory = try makeTemporaryDirectory()
        let redirected = server.url(.redirect(302, to: "/bytes/700")).absoluteString
        let missing = server.url(.status(404)).absoluteString
        let run = try CourierBinary.run(["get", "--json", "-o", directory.path, redirected, missing])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertEqual(run.outputLines.count, 2, "only the JSON lines go to standard output: \(run.transcript)")
        let objects = try run.outputLines.map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
        }
        let saved = try XCTUnwrap(objects.first { $0["url"] as? String == redirected }, run.transcript)
        XCTAssertEqual(saved["final_url"] as? String, server.url(.bytes(700)).absoluteString)
        XCTAssertEqual(saved["status"] as? Int, 200)
        // Named after the URL that was asked for, as wget does without --trust-server-names.
        XCTAssertEqual(saved["file"] as? String, directory.path + "/302")
        XCTAssertEqual(saved["bytes"] as? Int, 700)
        XCTAssertEqual(saved["attempts"] as? Int, 1)
        XCTAssertEqual(saved["result"] as? String, "saved")
        XCTAssertTrue(saved["error"] is NSNull, "\(saved)")
        XCTAssertNotNil(saved["seconds"] as? Double)
        let failed = try XCTUnwrap(objects.first { $0["url"] as? String == missing }, run.transcript)
        XCTAssertEqual(failed["status"] as? Int, 404)
        XCTAssertTrue(failed["file"] is NSNull, "\(failed)")
        XCTAssertEqual(failed["result"] as? String, "rejected")
        XCTAssertEqual(failed["error"] as? String, "404 Not Found")
        // The lines for people went to standard error.
        XCTAssertTrue(run.standardError.contains("2 URLs: 1 saved, 1 failed"), run.transcript)
    }

    func testThatQuietJSONStillTellsAScriptWhichNameTheFileGot() throws {
        let directory = try makeTemporaryDirectory()
        try Data("mine".utf8).write(to: directory.appendingPathComponent("700"))
        let run = try CourierBinary.run([
            "get", "-q", "--json", "-o", directory.path, server.url(.bytes(700)).absoluteString,
        ])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(run.standardError, "", "-q prints nothing for a success")
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(run.outputLines.joined().utf8)) as? [String: Any], run.transcript)
        XCTAssertEqual(object["file"] as? String, directory.path + "/700 (1)")
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("700 (1)")), TestServer.deterministicBytes(count: 700)
        )
    }

    func testThatIncludePrintsEachHopsHeadBeforeTheResultLine() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.redirect(302, to: "/headers?X-Flavour=mint")).absoluteString
        let run = try CourierBinary.run(["get", "--include", "-o", directory.path, url])
        XCTAssertEqual(run.status, 0, run.transcript)
        let lines = run.outputLines
        let redirect = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("HTTP/1.1 302") }, run.transcript)
        let final = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("HTTP/1.1 200") }, run.transcript)
        let result = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("ok   200") }, run.transcript)
        XCTAssertLessThan(redirect, final)
        XCTAssertLessThan(final, result)
        XCTAssertTrue(lines[redirect..<final].contains { $0.lowercased().hasPrefix("location: ") }, run.transcript)
        XCTAssertTrue(lines[final..<result].contains("X-Flavour: mint"), run.transcript)
        XCTAssertEqual(lines[result - 1], "", "an empty line ends each head: \(run.transcript)")
    }

    func testThatIncludeWithStandardOutputPutsTheHeadBeforeTheBody() throws {
        let run = try CourierBinary.run(["get", "--include", "-O", "-", server.url(.text("hello")).absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.hasPrefix("HTTP/1.1 200 OK\r\n"), run.transcript)
        XCTAssertTrue(run.standardOutput.hasSuffix("\r\n\r\nhello"), run.transcript)
    }

    func testThatDumpHeaderWritesEveryResponseHeadToTheFile() throws {
        let directory = try makeTemporaryDirectory()
        let headFile = directory.appendingPathComponent("heads.txt")
        let first = server.url(.redirect(302, to: "/bytes/10")).absoluteString
        let second = server.url(.status(404)).absoluteString
        let run = try CourierBinary.run(["get", "-D", headFile.path, "-o", directory.path, first, second])
        XCTAssertEqual(run.status, 1, run.transcript)
        let heads = try String(contentsOf: headFile, encoding: .utf8)
        let statusLines = heads.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/") }
        XCTAssertEqual(
            statusLines.sorted(), ["HTTP/1.1 200 OK", "HTTP/1.1 302 Found", "HTTP/1.1 404 Not Found"], heads)
        XCTAssertTrue(heads.contains("Content-Length: 10\r\n"), heads)
        XCTAssertFalse(run.standardOutput.contains("HTTP/1.1"), "-D alone prints no head: \(run.transcript)")
    }

    func testThatAHeadFileThatCannotBeWrittenFailsTheTransfer() throws {
        let directory = try makeTemporaryDirectory()
        // Files may grow to 512 bytes (ulimit -f 1), with SIGXFSZ ignored so that a longer write
        // fails with EFBIG instead of killing courier: the 2-byte body fits, its 700-byte head not
        // (nor would a longer transcript, which goes to a file too).
        let url = server.url(.hugeHeader(700)).absoluteString
        let script = "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\""
        let run = try Tool.run(
            URL(fileURLWithPath: "/bin/sh"),
            [
                "-c", script, try CourierBinary.url().path, "get", "--no-progress", "-D", "heads.txt", "-o", "files",
                url,
            ],
            in: directory, errorsToOutput: true)
        XCTAssertEqual(run.status, 1, run.text)
        XCTAssertTrue(run.text.contains("cannot write the headers to heads.txt: File too large"), run.text)
        XCTAssertEqual(try fileNames(in: directory.appendingPathComponent("files")), [], run.text)
    }

    func testThatIncludeAndJSONCannotShareStandardOutputWithTheBody() throws {
        let url = server.url(.bytes(10)).absoluteString
        let json = try CourierBinary.run(["get", "--json", "-O", "-", url])
        XCTAssertEqual(json.status, 2, json.transcript)
        XCTAssertTrue(json.standardError.contains("--json writes to standard output"), json.transcript)
        let dump = try CourierBinary.run(["get", "--json", "-D", "-", url])
        XCTAssertEqual(dump.status, 2, dump.transcript)
        XCTAssertEqual(server.recordedRequests.count, 0)
    }
}
