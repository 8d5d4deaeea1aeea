import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier post`: forms and bodies as the server receives them, the response on standard output,
/// the status on standard error, and upload progress.
final class PostCommandTests: ServerTestCase {
    /// The echo route's JSON reply: the method and the body the server received.
    private struct Echo: Decodable {
        let method: String
        let headers: [[String]]
        let body: String
        var bodyData: Data { Data(base64Encoded: body) ?? Data() }
        func header(_ name: String) -> String? {
            headers.first { $0.first?.lowercased() == name.lowercased() }?.last
        }
    }

    private func echo(of run: CLIRun) throws -> Echo {
        try JSONDecoder().decode(Echo.self, from: run.standardOutputData)
    }

    func testThatFieldsAndFilesArriveAsAMultipartForm() throws {
        let directory = try makeTemporaryDirectory()
        let file = directory.appendingPathComponent("notes.txt")
        let contents = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 97 + 32) })
        try contents.write(to: file)
        let run = try CourierBinary.run(
            ["post", server.url(.echo).absoluteString, "-F", "name=ada", "-F", "file=@\(file.path);type=text/plain"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let echo = try echo(of: run)
        XCTAssertEqual(echo.method, "POST")
        XCTAssertTrue(echo.header("Content-Type")?.hasPrefix("multipart/form-data;") == true, "\(echo.headers)")
        let body = echo.bodyData
        XCTAssertNotNil(body.range(of: Data("name=\"name\"\r\n\r\nada\r\n".utf8)), "the field")
        XCTAssertNotNil(body.range(of: Data("name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain".utf8)))
        XCTAssertNotNil(body.range(of: contents), "the whole file")
        XCTAssertNotNil(
            run.standardError.firstMatch(
                of: /ok   POST http:\/\/127\.0\.0\.1:\d+\/echo: 200 OK, \d{6} bytes sent, \d+ received/),
            run.transcript)
    }

    func testThatFieldsAloneAreURLEncoded() throws {
        let run = try CourierBinary.run(["post", server.url(.echo).absoluteString, "-F", "q=a b&c", "-F", "n=1"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let echo = try echo(of: run)
        XCTAssertEqual(echo.header("Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertEqual(String(decoding: echo.bodyData, as: UTF8.self), "q=a%20b%26c&n=1")
    }

    func testThatDataIsSentAsGivenAndDataBinaryStreamsAFile() throws {
        let directory = try makeTemporaryDirectory()
        let lines = directory.appendingPathComponent("lines.txt")
        try Data("x=1\ny=2\n".utf8).write(to: lines)
        let data = try CourierBinary.run([
            "post", server.url(.echo).absoluteString, "-d", "a=1", "-d", "@\(lines.path)",
        ])
        XCTAssertEqual(data.status, 0, data.transcript)
        XCTAssertEqual(String(decoding: try echo(of: data).bodyData, as: UTF8.self), "a=1&x=1y=2", "curl's --data")
        XCTAssertEqual(try echo(of: data).header("Content-Type"), "application/x-www-form-urlencoded")

        let blob = directory.appendingPathComponent("blob.bin")
        let bytes = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: blob)
        let binary = try CourierBinary.run(
            [
                "post", "-X", "PUT", "-H", "Content-Type: application/octet-stream", server.url(.echo).absoluteString,
                "--data-binary", "@\(blob.path)",
            ])
        XCTAssertEqual(binary.status, 0, binary.transcript)
        let echo = try echo(of: binary)
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(echo.header("Content-Type"), "application/octet-stream")
        XCTAssertTrue(echo.bodyData == bytes, "byte for byte")
    }

    func testThatAnErrorStatusExitsOneAndAFailureSaysWhy() throws {
        let teapot = try CourierBinary.run(["post", server.url(.status(418)).absoluteString, "-d", "x"])
        XCTAssertEqual(teapot.status, 1, teapot.transcript)
        XCTAssertTrue(teapot.standardError.contains("err  POST "), teapot.transcript)
        XCTAssertTrue(teapot.standardError.contains(": 418 "), teapot.transcript)

        let closed = try TestServer()
        let refused = closed.url(.echo).absoluteString
        closed.stop()
        let failure = try CourierBinary.run(["post", refused, "-d", "x"])
        XCTAssertEqual(failure.status, 1, failure.transcript)
        XCTAssertTrue(failure.standardError.contains("FAIL POST \(refused): A connection failure occurred"))
    }

    func testThatTheUploadDrawsAProgressBarOnTheTerminal() throws {
        let directory = try makeTemporaryDirectory()
        let blob = directory.appendingPathComponent("big.bin")
        try Data(count: 3_000_000).write(to: blob)
        let run = try CourierBinary.runOnTerminal(
            [
                "post", server.url(.echo).absoluteString, "-F", "f=@\(blob.path)", "-o",
                directory.appendingPathComponent("reply").path,
            ])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.terminal.contains("100%  3.0 MB / 3.0 MB"), run.transcript)
        XCTAssertTrue(run.terminal.contains("ok   POST "), run.transcript)
        let reply = try Data(contentsOf: directory.appendingPathComponent("reply"))
        XCTAssertGreaterThan(reply.count, 4_000_000, "the echo of a 3 MB body, in base64, went to -o")
    }
}
