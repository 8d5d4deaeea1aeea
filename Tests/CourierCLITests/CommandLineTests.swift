import CourierTestSupport
import XCTest

/// Help, version and the usage errors: what `courier` says before it fetches anything.
final class CommandLineTests: XCTestCase {
    func testThatHelpListsTheCommandsAndExitsZero() throws {
        for flag in ["--help", "-h", "help"] {
            let run = try CourierBinary.run([flag])
            XCTAssertEqual(run.status, 0, run.transcript)
            for word in [
                "courier COMMAND", "get URL...", "post URL", "page URL", "demo", "--version", "courier help get",
            ] {
                XCTAssertTrue(run.standardOutput.contains(word), "\(flag) does not mention \(word): \(run.transcript)")
            }
            XCTAssertEqual(run.standardError, "")
        }
    }

    func testThatEachCommandHasItsHelpWithExamples() throws {
        let expected: [String: [String]] = [
            "get": [
                "usage: courier get [OPTIONS] URL...", "-o, --output DIR", "-O, --output-file FILE", "-c, --continue",
                "--retry N", "--timeout S", "--max-redirs N", "--limit-rate RATE", "-u, --user USER[:PASS]",
                "-H, --header", "-A, --user-agent UA", "--proxy URL", "--cacert FILE", "-k, --insecure",
                "--cache DIR", "--fail-fast", "-q, --quiet", "-v, --verbose", "--content-disposition", "--force",
                "--accurate", "-i, --input-file FILE", "-j, --jobs N", "Exit status", "Examples:",
                "courier get -c --retry 5",
            ],
            "post": [
                "usage: courier post [OPTIONS] URL", "-F, --form KEY=VALUE", "-d, --data DATA", "--data-binary DATA",
                "-X, --request METHOD", "Examples:", "courier post https://example.org/upload -F",
            ],
            "page": [
                "usage: courier page [OPTIONS] URL", "-o, --output PATH", "--single-file", "--max-depth N",
                "--max-resources N", "-j, --jobs N", "--fail-on-resource-errors", "--timeout S", "NAME_files/",
                "Exit status", "Examples:", "courier page --single-file",
            ],
            "demo": ["usage: courier demo [OPTIONS]", "-o, --output DIR", "a form upload", "Examples:"],
        ]
        for (command, words) in expected {
            for arguments in [["help", command], [command, "--help"], [command, "-h"]] {
                let run = try CourierBinary.run(arguments)
                XCTAssertEqual(run.status, 0, run.transcript)
                for word in words {
                    XCTAssertTrue(run.standardOutput.contains(word), "\(arguments) lacks \(word): \(run.transcript)")
                }
            }
        }
    }

    func testThatVersionPrintsTheLibraryVersion() throws {
        let run = try CourierBinary.run(["--version"])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertNotNil(
            run.outputLines.first?.wholeMatch(of: /courier \d+\.\d+\.\d+\S*/),
            "unexpected version line: \(run.transcript)")
    }

    func testThatBadCommandLinesSayWhatIsWrongInOneLineAndPointToTheHelp() throws {
        // Nothing is fetched: every one of these is refused before a request starts, so the
        // URLs may point anywhere on loopback.
        let cases: [(arguments: [String], message: String, pointer: String)] = [
            ([], "no command given", "courier --help"),
            (["get"], "get needs at least one URL", "courier get --help"),
            (["get", "-j", "0", "http://127.0.0.1:9/"], "-j needs a whole number from 1 to 1000 (got \"0\")", "get"),
            (["get", "--jobs=many", "http://127.0.0.1:9/"], "-j needs a whole number", "get"),
            (["get", "-j"], "-j needs a value (N)", "get"),
            (["get", "--fast", "http://127.0.0.1:9/"], "unknown option \"--fast\"", "get"),
            (["get", "-Z", "http://127.0.0.1:9/"], "unknown option \"-Z\"", "get"),
            (["get", "not a url"], "not an http or https URL: \"not a url\"", "get"),
            (["get", "ftp://127.0.0.1/file"], "not an http or https URL", "get"),
            (["get", "http://127.0.0.1:9/", "http://"], "not an http or https URL: \"http://\"", "get"),
            (["get", "-H", "X-Bad: a\nb", "http://127.0.0.1:9/"], "holds a line break or NUL", "get"),
            (["get", "--retry", "lots", "http://127.0.0.1:9/"], "--retry needs a whole number", "get"),
            (["get", "--limit-rate", "fast", "http://127.0.0.1:9/"], "--limit-rate needs bytes per second", "get"),
            (["get", "-O", "x", "http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], "-O names one file", "get"),
            (["get", "-i", "/nonexistent/urls.txt"], "-i: cannot read /nonexistent/urls.txt", "get"),
            (["post"], "post needs a URL", "post"),
            (["post", "http://127.0.0.1:9/", "-F", "oops"], "-F needs KEY=VALUE", "post"),
            (
                ["post", "http://127.0.0.1:9/", "-F", "f=@/nonexistent/file"], "-F: cannot read /nonexistent/file",
                "post"
            ),
            (["demo", "http://127.0.0.1:9/"], "demo takes no URLs", "demo"),
            (["page"], "page needs a URL", "page"),
            (["page", "http://127.0.0.1:9/a", "http://127.0.0.1:9/b"], "page saves one URL (got 2)", "page"),
            (["page", "--max-depth", "-1", "http://127.0.0.1:9/"], "--max-depth needs a whole number", "page"),
            (["page", "-j", "0", "http://127.0.0.1:9/"], "-j needs a whole number from 1 to 100", "page"),
            (["page", "file:///etc/passwd"], "not an http or https URL", "page"),
            (["fetch"], "unknown command \"fetch\"", "courier --help"),
            (["--verbose"], "unknown option \"--verbose\"", "courier --help"),
        ]
        for (arguments, message, pointer) in cases {
            let run = try CourierBinary.run(arguments)
            XCTAssertEqual(run.status, 2, "\(arguments): \(run.transcript)")
            let lines = run.standardError.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, "a message and a pointer, not the whole help: \(run.transcript)")
            XCTAssertTrue(lines.first?.hasPrefix("courier: ") == true, "\(arguments): \(run.transcript)")
            XCTAssertTrue(run.standardError.contains(message), "\(arguments): \(run.transcript)")
            XCTAssertTrue(lines.last?.contains(pointer) == true, "\(arguments): \(run.transcript)")
            XCTAssertEqual(run.standardOutput, "", "\(arguments)")
        }
    }
}
