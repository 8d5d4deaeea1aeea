import XCTest

@testable import courier

/// The parser on its own: every spelling of the flags, without running anything.
final class CommandLineParserTests: XCTestCase {
    private let url = "http://127.0.0.1:8080/bytes/10"

    func testThatFlagsMayBeSpelledEveryWayAndGoAnywhere() throws {
        var options = GetOptions()
        options.outputDirectory = "out"
        options.jobs = 8
        let expected = Command.get(operands: [url, "http://127.0.0.1:8080/-dash"], options: options)
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

    func testThatSwitchesBundleAndTheLastLetterMayTakeAValue() throws {
        var options = GetOptions()
        options.resumes = true
        options.request.isInsecure = true
        options.jobs = 3
        XCTAssertEqual(try CommandLineParser.parse(["get", "-ckj3", url]), .get(operands: [url], options: options))
        XCTAssertEqual(try CommandLineParser.parse(["get", "-ckj", "3", url]), .get(operands: [url], options: options))
    }

    func testThatEveryGetFlagIsRead() throws {
        let arguments = [
            "get", "-O", "file.bin", "-c", "--retry", "3", "--timeout", "2.5", "--max-redirs", "2", "--limit-rate",
            "100k", "-u", "ada:lovelace", "-H", "X-One: 1", "-H", "X-Two:two", "-A", "agent/1",
            "--proxy", "socks5h://p:q@127.0.0.1:1080", "--cacert", "ca.pem", "-k", "--cache", "cache", "--fail-fast",
            "-q", "-v", "--content-disposition", "--force", "--accurate", "--no-progress", url,
        ]
        guard case .get(let operands, let options) = try CommandLineParser.parse(arguments) else {
            return XCTFail("not a get")
        }
        XCTAssertEqual(operands, [url])
        XCTAssertEqual(options.outputFile, "file.bin")
        XCTAssertTrue(options.resumes)
        XCTAssertEqual(options.retries, 3)
        XCTAssertEqual(options.request.timeoutSeconds, 2.5)
        XCTAssertEqual(options.request.maxRedirects, 2)
        XCTAssertEqual(options.request.bandwidthLimit, 100_000)
        XCTAssertEqual(options.request.username, "ada")
        XCTAssertEqual(options.request.password, "lovelace")
        XCTAssertEqual(
            options.request.headers, [HeaderLine(name: "X-One", value: "1"), HeaderLine(name: "X-Two", value: "two")])
        XCTAssertEqual(options.request.userAgent, "agent/1")
        XCTAssertEqual(options.request.proxy?.type, .socks5h)
        XCTAssertEqual(options.request.proxy?.host, "127.0.0.1")
        XCTAssertEqual(options.request.proxy?.port, 1080)
        XCTAssertEqual(options.request.proxy?.username, "p")
        XCTAssertEqual(options.request.proxy?.password, "q")
        XCTAssertEqual(options.request.caBundlePath, "ca.pem")
        XCTAssertTrue(options.request.isInsecure)
        XCTAssertEqual(options.cacheDirectory, "cache")
        XCTAssertTrue(options.failsFast)
        XCTAssertTrue(options.request.isQuiet)
        XCTAssertTrue(options.request.isVerbose)
        XCTAssertTrue(options.usesContentDisposition)
        XCTAssertTrue(options.overwrites)
        XCTAssertTrue(options.isAccurate)
        XCTAssertFalse(options.request.showsProgress)
    }

    func testThatPostReadsFormsAndBodies() throws {
        let arguments = [
            "post", url, "-F", "name=ada", "-F", "file=@/tmp/a.txt;type=text/plain;filename=b.txt", "-X", "put",
        ]
        guard case .post(_, let options) = try CommandLineParser.parse(arguments) else { return XCTFail("not a post") }
        XCTAssertEqual(
            options.formParts,
            [
                .value(key: "name", value: "ada"),
                .file(key: "file", path: "/tmp/a.txt", contentType: "text/plain", fileName: "b.txt"),
            ])
        XCTAssertEqual(options.method, "PUT")
        guard case .post(_, let data) = try CommandLineParser.parse(["post", url, "-d", "a=1", "--data-binary", "b=2"])
        else { return XCTFail("not a post") }
        XCTAssertEqual(data.dataParts, [.text("a=1"), .text("b=2")])
    }

    func testThatDefaultsApply() throws {
        XCTAssertEqual(try CommandLineParser.parse(["demo"]), .demo(options: DemoOptions()))
        XCTAssertEqual(GetOptions().jobs, 4)
        XCTAssertNil(GetOptions().outputDirectory)
        XCTAssertTrue(GetOptions().request.showsProgress)
        XCTAssertEqual(GetOptions().retries, 0)
    }

    func testThatHelpAndVersionWin() throws {
        XCTAssertEqual(try CommandLineParser.parse(["--help"]), .help(command: nil))
        XCTAssertEqual(try CommandLineParser.parse(["get", url, "-h"]), .help(command: "get"))
        XCTAssertEqual(try CommandLineParser.parse(["help", "post"]), .help(command: "post"))
        XCTAssertEqual(try CommandLineParser.parse(["demo", "--help"]), .help(command: "demo"))
        XCTAssertEqual(try CommandLineParser.parse(["--version"]), .version)
    }

    func testThatTheHelpListsEveryFlagTheParserTakes() {
        for (command, specs) in [("get", GetOptions.allSpecs), ("post", PostOptions.allSpecs)] {
            let text = HelpText.text(for: command)
            for spec in specs {
                XCTAssertTrue(text.contains("--" + spec.long), "\(command) --help lacks --\(spec.long)")
            }
        }
    }

    func testThatLimitRateCountsInTheUnitsRatesArePrintedIn() throws {
        let rates = [
            "500": 500, "100k": 100_000, "2M": 2_000_000, "1.5G": 1_500_000_000, "2Mi": 2_097_152, "64Ki": 65_536,
        ]
        for (typed, bytes) in rates {
            guard case .get(_, let options) = try CommandLineParser.parse(["get", "--limit-rate", typed, url]) else {
                return XCTFail("not a get")
            }
            XCTAssertEqual(options.request.bandwidthLimit, Int64(bytes), typed)
        }
    }

    func testThatMistakesAreUsageErrors() {
        let mistakes: [[String]] = [
            [], ["get"], ["get", "-j", "-1", url], ["get", "-j", "1.5", url], ["get", "-o"], ["get", "-o", "", url],
            ["get", "-hx", url], ["get", "--help=yes", url], ["get", "--no-progress=yes", url], ["get", "mailto:a@b"],
            ["demo", url], ["-x"], ["get", "-H", "no colon", url], ["get", "-H", "Bad Name: x", url],
            ["get", "-H", "X: a\r\nInjected: b", url], ["get", "--limit-rate", "fast", url],
            ["get", "--timeout", "-1", url], ["get", "file:/etc/passwd"],
            ["get", "-O", "a", url, url], ["get", "-O", "-", "-c", url], ["get", "--proxy", "gopher://x:1", url],
            ["get", "-u", ":nouser", url], ["post"], ["post", url, url], ["post", url, "-F", "novalue"],
            ["post", url, "-F", "a=1", "-d", "b"], ["post", url, "-X", "GET /x"], ["help", "nothing"],
        ]
        for arguments in mistakes {
            XCTAssertThrowsError(try CommandLineParser.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue(error is UsageError, "\(arguments)")
            }
        }
    }
}
