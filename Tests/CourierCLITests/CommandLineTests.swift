import CourierTestSupport
import XCTest

/// Help, version and the usage errors: what `courier` says before it fetches anything.
final class CommandLineTests: XCTestCase {
    func testThatHelpListsTheCommandsAndFlagsAndExitsZero() throws {
        for flag in ["--help", "-h", "help"] {
            let run = try CourierBinary.run([flag])
            XCTAssertEqual(run.status, 0, run.transcript)
            for word in [
                "courier get", "courier demo", "-o, --output DIR", "-j, --jobs N", "--no-progress", "--version",
            ] {
                XCTAssertTrue(run.standardOutput.contains(word), "\(flag) does not mention \(word): \(run.transcript)")
            }
            XCTAssertEqual(run.standardError, "")
        }
    }

    func testThatHelpAfterACommandPrintsTheUsage() throws {
        let run = try CourierBinary.run(["get", "--help"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(run.standardOutput.contains("usage: courier get"), run.transcript)
    }

    func testThatVersionPrintsTheLibraryVersion() throws {
        let run = try CourierBinary.run(["--version"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertNotNil(
            run.standardOutput.wholeMatch(of: /courier \d+\.\d+\.\d+\S*\n/),
            "unexpected version line: \(run.transcript)")
    }

    func testThatNoArgumentsPrintsTheUsageAndExitsTwo() throws {
        let run = try CourierBinary.run([])
        XCTAssertEqual(run.status, 2, run.transcript)
        XCTAssertTrue(run.standardError.contains("usage: courier get"), run.transcript)
        XCTAssertEqual(run.standardOutput, "")
    }

    func testThatGetWithoutAURLIsAUsageError() throws {
        let run = try CourierBinary.run(["get"])
        XCTAssertEqual(run.status, 2, run.transcript)
        XCTAssertTrue(run.standardError.contains("get needs at least one URL"), run.transcript)
        XCTAssertTrue(run.standardError.contains("usage: courier get"), run.transcript)
        XCTAssertEqual(run.standardOutput, "")
    }

    func testThatBadCommandLinesAreUsageErrors() throws {
        // Nothing is fetched: every one of these is refused before a request starts, so the
        // URLs may point anywhere on loopback.
        let cases: [(arguments: [String], message: String)] = [
            (["get", "-j", "0", "http://127.0.0.1:9/"], "-j needs a whole number of at least 1 (got \"0\")"),
            (["get", "--jobs=many", "http://127.0.0.1:9/"], "--jobs needs a whole number"),
            (["get", "-j"], "-j needs a value"),
            (["get", "--fast", "http://127.0.0.1:9/"], "unknown option \"--fast\""),
            (["get", "not a url"], "not an http or https URL: \"not a url\""),
            (["get", "ftp://127.0.0.1/file"], "not an http or https URL"),
            (["get", "http://127.0.0.1:9/", "http://"], "not an http or https URL: \"http://\""),
            (["demo", "http://127.0.0.1:9/"], "demo takes no URLs"),
            (["fetch"], "unknown command \"fetch\""),
            (["--verbose"], "unknown option \"--verbose\""),
        ]
        for (arguments, message) in cases {
            let run = try CourierBinary.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.contains("courier: " + message), "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.contains("usage: courier get"), "\(arguments): \(run.transcript)")
            XCTAssertEqual(run.standardOutput, "", "\(arguments)")
        }
    }
}
