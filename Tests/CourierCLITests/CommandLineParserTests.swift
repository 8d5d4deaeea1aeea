import XCTest

@testable import courier

/// The parser on its own: every spelling of the flags, without running anything.
final class CommandLineParserTests: XCTestCase {
    private let url = "http://127.0.0.1:8080/bytes/10"

    func testThatFlagsMayBeSpelledEveryWayAndGoAnywhere() throws {
        let expected = Command.get(
            urls: [URL(string: url)!, URL(string: "http://127.0.0.1:8080/-dash")!],
            options: FetchOptions(outputDirectory: "out", maxConcurrentRequests: 8))
        let spellings: [[String]] = [
            ["get", "-o", "out", "-j", "8", url, "--", "http://127.0.0.1:8080/-dash"],
            ["get", url, "-oout", "-j8", "--", "http://127.0.0.1:8080/-dash"],
            ["get", "--output=out", url, "--jobs", "8", "http://127.0.0.1:8080/-dash"],
            // A repeated flag: the last one counts.
            ["get", "-j", "2", "--output", "x", url, "--jobs=8", "-o", "out", "--", "http://127.0.0.1:8080/-dash"],
        ]
        for arguments in spellings {
            XCTAssertEqual(try CommandLineParser.parse(arguments), expected, "\(arguments)")
        }
    }

    func testThatDefaultsApply() throws {
        XCTAssertEqual(try CommandLineParser.parse(["demo"]), .demo(options: FetchOptions()))
        XCTAssertEqual(FetchOptions().maxConcurrentRequests, 4)
        XCTAssertNil(FetchOptions().outputDirectory)
    }

    func testThatNoProgressTurnsTheBarOffForGetAndDemo() throws {
        XCTAssertTrue(FetchOptions().showsProgress)
        let off = FetchOptions(showsProgress: false)
        XCTAssertEqual(
            try CommandLineParser.parse(["get", "--no-progress", url]), .get(urls: [URL(string: url)!], options: off))
        XCTAssertEqual(
            try CommandLineParser.parse(["get", url, "--no-progress"]), .get(urls: [URL(string: url)!], options: off))
        XCTAssertEqual(try CommandLineParser.parse(["demo", "--no-progress"]), .demo(options: off))
        // After "--" it is an operand, and not a URL.
        XCTAssertThrowsError(try CommandLineParser.parse(["get", url, "--", "--no-progress"]))
    }

    func testThatHelpAndVersionWin() throws {
        XCTAssertEqual(try CommandLineParser.parse(["--help"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["get", url, "-h"]), .help)
        XCTAssertEqual(try CommandLineParser.parse(["--version"]), .version)
    }

    func testThatMistakesAreUsageErrors() {
        let mistakes: [[String]] = [
            [], ["get"], ["get", "-j", "-1", url], ["get", "-j", "1.5", url], ["get", "-o"], ["get", "-o", "", url],
            ["get", "-hx", url], ["get", "--help=yes", url], ["get", "--no-progress=yes", url], ["get", "mailto:a@b"],
            ["demo", url], ["-x"],
        ]
        for arguments in mistakes {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue(error is UsageError, "\(arguments)")
            }
        }
    }
}
