import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `--version`, the completion scripts, the manual page and default options: each made from
/// the same option tables the parser reads, and checked with the tools that use them.
final class CommandLineFurnitureTests: ServerTestCase {
    func testThatVersionNamesCourierAndTheLibcurlItRunsOnWithItsFeatures() throws {
        let run = try CourierBinary.run(["--version"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let lines = run.outputLines
        XCTAssertEqual(lines.first?.hasPrefix("courier 0."), true, run.transcript)
        XCTAssertNotNil(
            lines.dropFirst().first?.wholeMatch(of: /Courier \d+\.\d+\.\d+\S* on libcurl\/\d+\.\d+.*/), run.transcript)
        let protocols = try XCTUnwrap(lines.first { $0.hasPrefix("Protocols: ") }, run.transcript).split(separator: " ")
        XCTAssertTrue(protocols.contains("http") && protocols.contains("https"), run.transcript)
        XCTAssertNotNil(lines.first { $0.hasPrefix("Features: ") }, run.transcript)
    }

    func testThatBashCompletionOffersTheFlagsAndFilesOfTheCommandTyped() throws {
        let directory = try makeTemporaryDirectory()
        let script = try CourierBinary.run(["completion", "bash"])
        XCTAssertEqual(script.status, 0, script.transcript)
        let scriptPath = try directory.writeFile("courier.bash", script.standardOutputData)
        _ = try directory.writeFile("SHA256SUMS", Data())
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let run = try Tool.run(
                URL(fileURLWithPath: "/bin/bash"),
                [
                    "-c",
                    "source \"$1\"; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _courier; "
                        + "printf '%s\\n' \"${COMPREPLY[@]}\"", "bash", scriptPath,
                ],
                in: directory, errorsToOutput: true)
            XCTAssertEqual(run.status, 0, run.text)
            return run.text.split(separator: "\n").map(String.init).sorted()
        }
        XCTAssertEqual(try complete(["courier", "co"]), ["completion"])
        XCTAssertEqual(try complete(["courier", "get", "--no-c"]), ["--no-clobber"])
        XCTAssertEqual(try complete(["courier", "get", "--speed-"]), ["--speed-limit", "--speed-time"])
        XCTAssertEqual(try complete(["courier", "post", "--data-"]), ["--data-binary"])
        XCTAssertEqual(try complete(["courier", "get", "--checksums", "SHA"]), ["SHA256SUMS"])
        XCTAssertEqual(try complete(["courier", "completion", ""]), ["bash", "zsh"])
        XCTAssertEqual(try complete(["courier", "pa"]), ["page"])
        XCTAssertEqual(try complete(["courier", "page", "--single"]), ["--single-file"])
        // Every flag of every command is offered.
        let offered = Set(try complete(["courier", "get", "-"]))
        let expected = Set(try GetFlags.all)
        XCTAssertEqual(offered, expected)
    }

    func testThatZshCompletesCommandsAndFlagsFromTheScript() throws {
        let directory = try makeTemporaryDirectory()
        let script = try CourierBinary.run(["completion", "zsh"])
        XCTAssertEqual(script.status, 0, script.transcript)
        XCTAssertTrue(script.standardOutput.hasPrefix("#compdef courier\n"), script.standardOutput)
        _ = try directory.writeFile("_courier", script.standardOutputData)
        // An interactive zsh on a pseudo-terminal (zpty), with the script on its fpath: each line
        // is typed with a TAB, and the driver waits until what only a completion can show
        // appears (Tool.run's deadline ends a wait that never does).
        let driver = #"""
            zmodload zsh/zpty
            zpty z zsh -f -i
            zpty -w z "PS1='%% '; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; setopt nobeep; courier() { :; }; print READY"
            zpty -r z out '*READY*' || exit 3
            check() {
              zpty -w -n z $'\x15'"$1"$'\t'
              zpty -r z out "*$2*" || exit 4
              print -r -- "completed: $1 -> $2"
            }
            check 'courier get --no-c' '--no-clobber'
            check 'courier get --speed-' 'the seconds --speed-limit looks at'
            check 'courier post --data-b' '--data-binary'
            check 'courier comp' 'completion'
            check 'courier completion ' 'zsh'
            zpty -d z
            """#
        let driverPath = try directory.writeFile("drive.zsh", Data(driver.utf8))
        let run = try Tool.run(
            URL(fileURLWithPath: "/usr/bin/zsh"), ["-f", driverPath, directory.path], errorsToOutput: true,
            timeout: 30)
        XCTAssertEqual(run.status, 0, run.text)
        XCTAssertEqual(run.text.split(separator: "\n").filter { $0.hasPrefix("completed: ") }.count, 5, run.text)
    }

    func testThatTheZshCompletionDescribesEveryFlagOfEveryCommand() throws {
        let run = try CourierBinary.run(["completion", "zsh"])
        XCTAssertEqual(run.status, 0, run.transcript)
        let script = run.standardOutput
        for flag in try GetFlags.all where flag.hasPrefix("--") {
            XCTAssertTrue(
                script.contains("'\(flag)[") || script.contains(",\(flag)}'["), "\(flag) is not in the get section")
        }
        XCTAssertTrue(script.contains("'(-o --output)'{-o,--output}'[save into DIR (created when missing; default .)"), script)
        // A single quote inside a description must not end the quoted word.
        XCTAssertFalse(script.contains("server's Content"), "an unescaped quote: \(script)")
        XCTAssertTrue(script.contains(#"server'\''s Content"#), script)
    }

    func testThatTheManPageRendersWithoutWarningsAndListsEveryFlag() throws {
        let directory = try makeTemporaryDirectory()
        let page = try CourierBinary.run(["man"])
        XCTAssertEqual(page.status, 0, page.transcript)
        let path = try directory.writeFile("courier.1", page.standardOutputData)
        let warnings = try Tool.run(
            URL(fileURLWithPath: "/usr/bin/groff"), ["-man", "-ww", "-z", path], errorsToOutput: true)
        XCTAssertEqual(warnings.text, "", "groff's warnings")
        let rendered = try Tool.run(
            URL(fileURLWithPath: "/usr/bin/groff"), ["-man", "-Tascii", "-P", "-cbou", path], errorsToOutput: true)
        XCTAssertEqual(rendered.status, 0, rendered.text)
        let text = rendered.text
        for heading in ["NAME", "SYNOPSIS", "COURIER GET", "COURIER POST", "ENVIRONMENT", "FILES"] {
            XCTAssertTrue(text.contains(heading), "no \(heading) in\n\(text)")
        }
        for flag in try GetFlags.all where flag.hasPrefix("--") {
            XCTAssertTrue(text.contains(flag), "\(flag) is not in the page")
        }
        XCTAssertTrue(text.contains("-N, --timestamping"), text)
    }

    func testThatDefaultOptionsComeFromTheConfigFileThenTheEnvironmentAndVerboseShowsThem() throws {
        let directory = try makeTemporaryDirectory()
        let configHome = try makeTemporaryDirectory()
        let saved = directory.appendingPathComponent("from config")
        try FileManager.default.createDirectory(
            at: configHome.appendingPathComponent("courier"), withIntermediateDirectories: true)
        let config = try configHome.appendingPathComponent("courier").writeFile(
            "config", Data("# for scripts\n--json\n-o '\(saved.path)'   # quoted: a space\n".utf8))
        let url = server.url(.bytes(700)).absoluteString
        var launch = CourierBinary.Launch(environment: [
            "XDG_CONFIG_HOME": configHome.path, "COURIER_OPTIONS": "--no-clobber -u ada:s3cret",
        ])
        let run = try CourierBinary.run(["get", "-v", url], launch)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(
            run.standardError.contains("* defaults from \(config): --json -o '\(saved.path)'"), run.transcript)
        XCTAssertTrue(
            run.standardError.contains("* defaults from COURIER_OPTIONS: --no-clobber -u ada:***"), run.transcript)
        XCTAssertFalse(run.transcript.contains("s3cret"), run.transcript)
        XCTAssertEqual(try fileNames(in: saved), ["700"])
        XCTAssertTrue(run.standardOutput.hasPrefix("{"), "--json from the config file: \(run.transcript)")

        // The command line comes last, so its -o wins; --no-clobber from the environment still holds.
        let again = try CourierBinary.run(["get", "-o", saved.path, url], launch)
        XCTAssertEqual(again.status, 0, again.transcript)
        XCTAssertTrue(again.standardOutput.contains(#""result":"skipped""#), again.transcript)
        let other = try makeTemporaryDirectory()
        let elsewhere = try CourierBinary.run(["get", "-o", other.path, url], launch)
        XCTAssertEqual(try fileNames(in: other), ["700"], elsewhere.transcript)

        launch.environment["COURIER_OPTIONS"] = "--retry 2 \(url)"
        let operand = try CourierBinary.run(["get", url], launch)
        XCTAssertEqual(operand.status, 2, operand.transcript)
        XCTAssertTrue(
            operand.standardError.contains("COURIER_OPTIONS: \"\(url)\" is not an option (defaults hold options only)"),
            operand.transcript)
    }
}

/// Every name of every flag `courier get --help` lists, read from the help itself.
enum GetFlags {
    static var all: [String] {
        get throws {
            let help = try CourierBinary.run(["get", "--help"]).standardOutput
            return help.split(separator: "\n").flatMap { line -> [String] in
                // A flag's line starts at column 2 (-o, --output) or 6 (--retry); its description's
                // further lines start further in.
                guard line.hasPrefix("  -") || (line.hasPrefix("      --") && !line.hasPrefix("       ")) else {
                    return []
                }
                return line.split(separator: " ").prefix(2).map { String($0).trimmingCharacters(in: [","]) }
                    .filter { $0.hasPrefix("-") }
            }
        }
    }
}
