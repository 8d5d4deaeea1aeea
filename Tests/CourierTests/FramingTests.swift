import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A response whose body length is ambiguous is refused before any of its body is used, in
/// every body mode: two different Content-Length values, Content-Length beside
/// Transfer-Encoding, a negative or overflowing Content-Length. Each is the way one party reads
/// a different message boundary than another on the same connection: CWE-444 (HTTP request
/// smuggling / response splitting; CVE-2019-16869, CVE-2022-32213 class).
final class FramingTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-framing")
    }

    /// Refused in memory, to a download file and to a data delegate: one failure,
    /// `connectionFailure`, a message that says the response was malformed and why, no body.
    private func assertRefused(
        _ route: Route, because reason: String, saysMalformed: Bool = true, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for mode in BodyMode.allCases {
            let run = OutcomeRun.run(Fixture.url(route), mode: mode, in: directory)
            let context = "\(route) in \(mode)"
            run.assertFailed(
                with: .connectionFailure, messageContains: saysMalformed ? "The server sent a malformed response" : nil,
                context, file: file, line: line)
            XCTAssertTrue(
                run.request.error?.message.contains(reason) == true,
                "\(context): \(String(describing: run.request.error?.message))", file: file, line: line)
            XCTAssertEqual(
                run.delegate.bytesDelivered, 0, "\(context): no body to the data delegate", file: file, line: line)
            if mode == .memory {
                XCTAssertEqual(
                    run.request.responseData() ?? Data(), Data(), "\(context): no body", file: file, line: line)
            }
        }
    }

    private func assertAccepted(_ route: Route, body count: Int, file: StaticString = #filePath, line: UInt = #line) {
        for mode in BodyMode.allCases {
            let run = OutcomeRun.run(Fixture.url(route), mode: mode, in: directory)
            let context = "\(route) in \(mode)"
            run.assertFinished(context, file: file, line: line)
            if mode == .dataDelegate {
                XCTAssertEqual(run.delegate.bytesDelivered, count, context, file: file, line: line)
            } else {
                XCTAssertEqual(run.body, TestServer.deterministicBytes(count: count), context, file: file, line: line)
            }
        }
    }

    // MARK: Content-Length twice (RFC 9110 §8.6)

    func testThatTwoDifferentContentLengthFieldsAreRefused() {
        // libcurl 7.88 alone takes the last one and reads 20 bytes: a success with a body an
        // intermediary that took the first would have split into a response and a half.
        assertRefused(
            .framed(20, contentLengths: ["10", "20"]), because: "two different Content-Length values (10, 20)")
        assertRefused(.framed(10, contentLengths: ["10", "20"]), because: "(10, 20)")
    }

    func testThatTwoDifferentValuesInOneContentLengthFieldAreRefused() {
        assertRefused(.framed(20, contentLengths: ["10, 20"]), because: "two different Content-Length values (10, 20)")
    }

    func testThatTheSameContentLengthTwiceIsAccepted() {
        // RFC 9110 §8.6: a recipient may take a list of identical values as that one value.
        assertAccepted(.framed(10, contentLengths: ["10", "10"]), body: 10)
        assertAccepted(.framed(10, contentLengths: ["10, 10"]), body: 10)
        assertAccepted(.framed(10, contentLengths: ["10"]), body: 10)
    }

    // MARK: Content-Length beside Transfer-Encoding (RFC 9112 §6.1, §6.3)

    func testThatContentLengthWithTransferEncodingIsRefused() {
        // libcurl lets chunked win and succeeds; RFC 9112 §6.3 says such a message "ought to be
        // handled as an error" (a server MUST NOT send both, §6.1): the classic smuggling pair.
        assertRefused(
            .framed(20, contentLengths: ["5"], chunked: true), because: "both Content-Length and Transfer-Encoding")
        // Chunked alone is of course fine.
        assertAccepted(.framed(20, chunked: true), body: 20)
    }

    // MARK: Negative or overflowing Content-Length

    func testThatANegativeContentLengthIsRefused() {
        // libcurl refuses this one itself, before Courier's header callback sees the line
        // (CURLE_WEIRD_SERVER_REPLY, "Invalid Content-Length: value"), worded as Courier's own;
        // Courier's check (see the parser test below) stands behind it.
        assertRefused(.framed(10, contentLengths: ["-1"]), because: "Invalid Content-Length")
    }

    func testThatAnOverflowingContentLengthIsRefused() {
        // libcurl 7.88 only notes "Overflow Content-Length: value" and reads to the close.
        assertRefused(
            .framed(10, contentLengths: ["99999999999999999999999"]), because: "Content-Length value is too large")
        // One past Int64.max, the largest length libcurl can hold.
        assertRefused(.framed(10, contentLengths: ["9223372036854775808"]), because: "too large")
    }

    func testThatAContentLengthThatIsNotANumberIsRefused() {
        assertRefused(.framed(10, contentLengths: ["10 bytes"]), because: "Content-Length")
        assertRefused(.framed(10, contentLengths: ["0x10"]), because: "Content-Length")
    }

    // MARK: The parser itself

    func testThatTheHeadParserNamesEachFramingProblem() {
        func problem(_ lines: [String]) -> String? {
            var parser = ResponseHeadParser()
            for line in ["HTTP/1.1 200 OK"] + lines + [""] {
                _ = parser.consume(line + "\r\n")
                if let malformation = parser.malformation { return malformation }
            }
            return nil
        }
        XCTAssertNil(problem(["Content-Length: 10", "content-length:10"]))
        XCTAssertNil(problem(["Content-Length: 10 ,10, ,"]))
        XCTAssertNil(problem(["Transfer-Encoding: chunked"]))
        XCTAssertEqual(
            problem(["Content-Length: 10", "Content-Length: 20"]), "two different Content-Length values (10, 20)")
        XCTAssertEqual(
            problem(["Content-Length: 5", "Transfer-Encoding: chunked"]),
            "both Content-Length and Transfer-Encoding, which frame the body differently")
        XCTAssertEqual(
            problem(["Transfer-Encoding: chunked", "Content-Length: 5"]),
            "both Content-Length and Transfer-Encoding, which frame the body differently")
        XCTAssertEqual(problem(["Content-Length: -1"]), "an invalid Content-Length value (-1)")
        XCTAssertEqual(problem(["Content-Length:"]), "an invalid Content-Length value ()")
        // The server's bytes are quoted only printable and short (CWE-117: no log injection).
        XCTAssertEqual(problem(["Content-Length: 1\u{1B}[2J"]), "an invalid Content-Length value (1?[2J)")
        let long = String(repeating: "9", count: 500)
        let tooLarge = problem(["Content-Length: " + long]) ?? ""
        XCTAssertTrue(tooLarge.hasPrefix("a Content-Length value is too large (9999"), tooLarge)
        XCTAssertTrue(tooLarge.hasSuffix("...)") && tooLarge.count < 100, tooLarge)
        // A 1xx interim response frames no body: its fields are not the final response's.
        var parser = ResponseHeadParser()
        for line in ["HTTP/1.1 100 Continue", "Content-Length: 3", "", "HTTP/1.1 200 OK", "Content-Length: 4"] {
            _ = parser.consume(line + "\r\n")
        }
        XCTAssertNil(parser.malformation)
        XCTAssertEqual(parser.consume("\r\n")?.contentLength, 4)
    }
}
