import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier get`'s progress bar: redrawn in place on a terminal, plain lines into a file, absent
/// with `--no-progress`, and never on standard output.
final class GetProgressTests: ServerTestCase {
    /// Three fast 2 MB downloads and one slow one: 30 bytes, one every 40 ms, so the batch takes
    /// over a second and a terminal bar (at most ten draws a second) redraws several times.
    private var urls: [String] {
        [.bytes(2_000_000), .bytes(2_000_000), .bytes(2_000_000), .trickle(30, intervalMilliseconds: 40)].map {
            server.url($0).absoluteString
        }
    }

    /// The bytes the four URLs send.
    private let totalBytes = 3 * 2_000_000 + 30

    func testThatATerminalSeesTheBarRedrawnInPlaceAndStandardOutputStaysClean() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.runOnTerminal(["get", "-o", directory.path] + urls, columns: 100)
        XCTAssertEqual(run.status, 0, run.transcript)
        let terminal = run.terminal

        // Redrawn in place: each draw starts with a carriage return and the bar.
        let draws = terminal.components(separatedBy: "\r").dropFirst()
        XCTAssertTrue(terminal.hasPrefix("\r["), run.transcript)
        XCTAssertGreaterThan(draws.count, 2, "the bar should redraw while the slow download runs: \(run.transcript)")
        for draw in draws {
            XCTAssertNotNil(
                draw.firstMatch(of: /^\[[=> ]+\] +\d{1,3}%  .*\d+\/4 requests */), "not a bar: \(run.transcript)")
            // Sized to the terminal: never into the last column, where it would wrap.
            XCTAssertLessThan(draw.trimmingCharacters(in: .newlines).count, 100, run.transcript)
        }
        XCTAssertFalse(terminal.contains("\u{1B}"), "standard output is not on the terminal: nothing to wipe")
        // It ends complete, on a line of its own.
        let last = try XCTUnwrap(draws.last, run.transcript)
        XCTAssertNotNil(
            last.wholeMatch(of: /\[=+\] +100%  6\.0 MB \/ 6\.0 MB  .*4\/4 requests\n/),
            "the final draw: \(run.transcript)")
        XCTAssertEqual(terminal.filter { $0 == "\n" }.count, 1, "only the final draw ends a line: \(run.transcript)")

        assertCleanResults(run.standardOutput, lines: run.outputLines, in: directory, transcript: run.transcript)
    }

    func testThatStandardErrorInAFileGetsPlainProgressLines() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(["get", "-o", directory.path] + urls)
        XCTAssertEqual(run.status, 0, run.transcript)
        let error = run.standardError
        XCTAssertFalse(error.contains("\r"), run.transcript)
        XCTAssertFalse(error.contains("\u{1B}"), run.transcript)
        XCTAssertTrue(error.hasSuffix("\n"), run.transcript)
        let lines = error.split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.isEmpty, run.transcript)
        var percentages: [Int] = []
        for line in lines {
            let match = line.wholeMatch(of: /\[[=> ]{20}\] +(\d{1,3})%  .*\d\/4 requests/)
            XCTAssertNotNil(match, "not a progress line: \(line)")
            if let match, let percentage = Int(match.1) { percentages.append(percentage) }
        }
        XCTAssertEqual(percentages, percentages.sorted(), "progress only goes forward: \(run.transcript)")
        let last = try XCTUnwrap(lines.last)
        XCTAssertNotNil(
            last.wholeMatch(of: /\[={20}\] +100%  6\.0 MB \/ 6\.0 MB  .*4\/4 requests/), run.transcript)

        assertCleanResults(run.standardOutput, lines: run.outputLines, in: directory, transcript: run.transcript)
    }

    func testThatNoProgressWritesNothingToStandardError() throws {
        let urls = [server.url(.bytes(2_000_000)).absoluteString, server.url(.bytes(1000)).absoluteString]

        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(["get", "--no-progress", "-o", directory.path] + urls)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(run.standardError, "", run.transcript)
        XCTAssertEqual(run.outputLines.count, 3, run.transcript)

        // Not even on a terminal.
        let terminalDirectory = try makeTemporaryDirectory()
        let terminalRun = try CourierBinary.runOnTerminal(
            ["get", "-o", terminalDirectory.path, "--no-progress"] + urls)
        XCTAssertEqual(terminalRun.status, 0, terminalRun.transcript)
        XCTAssertEqual(terminalRun.terminal, "", terminalRun.transcript)
        XCTAssertEqual(terminalRun.outputLines.count, 3, terminalRun.transcript)
    }

    func testThatResultLinesOnTheBarsTerminalStartOnALineOfTheirOwn() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.runOnTerminal(
            ["get", "-o", directory.path] + urls, outputOnTerminal: true)
        XCTAssertEqual(run.status, 0, run.transcript)
        let lines = run.terminal.components(separatedBy: "\n")
        let resultLines = lines.filter { $0.contains("ok   200") }
        XCTAssertEqual(resultLines.count, 4, run.transcript)
        for line in resultLines {
            // Whatever the bar had drawn on that line is wiped (carriage return, erase to the
            // end of the line) before the result is printed over it.
            let before = try XCTUnwrap(line.components(separatedBy: "ok   200").first)
            XCTAssertTrue(before.isEmpty || before.hasSuffix("\r\u{1B}[K"), "garbled: \(run.transcript)")
        }
        // The finished bar, then the summary below it.
        let barIndex = try XCTUnwrap(lines.lastIndex { $0.contains("100%") && $0.contains("4/4 requests") })
        let summaryIndex = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("4 URLs: 4 saved; ") }, run.transcript)
        XCTAssertEqual(summaryIndex, barIndex + 1, run.transcript)
    }

    func testThatTheBarKeepsItsWidthWhenTheRateAndETAAppear() throws {
        let directory = try makeTemporaryDirectory()
        // 300 bytes, one every 5 ms: long enough for the rate and the ETA to be measured.
        let slow = server.url(.trickle(300, intervalMilliseconds: 5)).absoluteString
        let run = try CourierBinary.runOnTerminal(["get", "-o", directory.path, slow], columns: 100, timeout: 20)
        XCTAssertEqual(run.status, 0, run.transcript)
        let draws = run.terminal.components(separatedBy: "\r").filter { $0.contains("[") && $0.contains("%") }
        let widths = draws.compactMap { draw -> Int? in
            guard let open = draw.firstIndex(of: "["), let close = draw[open...].firstIndex(of: "]") else { return nil }
            return draw.distance(from: open, to: close)
        }
        XCTAssertTrue(draws.contains { $0.contains("/s") }, "the rate appeared: \(run.transcript)")
        XCTAssertTrue(draws.contains { !$0.contains("/s") }, "and was not there at first: \(run.transcript)")
        XCTAssertEqual(Set(widths).count, 1, "one bar width from first draw to last: \(widths) \(run.transcript)")
    }

    func testThatCtrlCClearsTheBarPrintsTheSummaryAndKeepsThePartForContinue() throws {
        let directory = try makeTemporaryDirectory()
        // 2,000 bytes, one every 5 ms: ten seconds, far longer than the wait before Ctrl-C.
        let slow = server.url(.trickle(2000, intervalMilliseconds: 5)).absoluteString
        let fast = server.url(.bytes(5000)).absoluteString
        let run = try CourierBinary.runOnTerminal(
            ["get", "-o", directory.path, fast, slow], outputOnTerminal: true, timeout: 20,
            whileRunning: { pid in
                usleep(1_200_000)
                kill(pid, SIGINT)
            })
        XCTAssertEqual(run.status, 130, run.transcript)
        let terminal = run.terminal
        let interrupted = try XCTUnwrap(terminal.range(of: "2 URLs: 1 saved, 1 unfinished; "), run.transcript)
        // The bar was wiped just before the summary, which starts on a clean line.
        XCTAssertTrue(terminal[..<interrupted.lowerBound].hasSuffix("\r\u{1B}[K"), run.transcript)
        XCTAssertTrue(
            terminal.contains("interrupted: partial downloads are kept as NAME.part; run again with -c to resume them"),
            run.transcript)
        let names = try fileNames(in: directory)
        XCTAssertEqual(names, ["2000.part", "5000"], "the unfinished one only as its .part: \(run.transcript)")
        // The bar does not come back after the summary.
        XCTAssertFalse(terminal[interrupted.upperBound...].contains("%"), run.transcript)
    }

    func testThatAClosedStandardErrorNeitherStopsNorCorruptsTheDownloads() throws {
        let directory = try makeTemporaryDirectory()
        // Descriptor 2 closed: unless courier fills it, the bar writes into whatever file or
        // socket takes the number next, or traps on a write to a closed descriptor.
        let run = try CourierBinary.run(["get", "-o", directory.path] + urls, closingStandardError: true)
        XCTAssertEqual(run.status, 0, run.transcript)
        assertCleanResults(run.standardOutput, lines: run.outputLines, in: directory, transcript: run.transcript)
        for name in ["2000000", "2000000 (1)", "2000000 (2)"] {
            let saved = try Data(contentsOf: directory.appendingPathComponent(name))
            XCTAssertTrue(saved == TestServer.deterministicBytes(count: 2_000_000), "\(name) differs")
        }
        let slow = try Data(contentsOf: directory.appendingPathComponent("30"))
        XCTAssertEqual(slow, TestServer.deterministicBytes(count: 30))
    }

    /// Standard output holds one result line per URL and the summary, and nothing of the bar;
    /// every file is saved.
    private func assertCleanResults(
        _ output: String, lines: [String], in directory: URL, transcript: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for character in ["\r", "\u{1B}", "[", "]", "%"] {
            XCTAssertFalse(output.contains(character), "\(character.debugDescription) in stdout: \(transcript)")
        }
        XCTAssertEqual(lines.count, 5, transcript, file: file, line: line)
        XCTAssertEqual(
            lines.prefix(4).filter { $0.hasPrefix("ok   200 ") }.count, 4, transcript, file: file, line: line)
        XCTAssertNotNil(
            lines.last?.wholeMatch(of: /4 URLs: 4 saved; \d+ bytes in \d+\.\d{3} s \(.+\/s\)/), transcript,
            file: file, line: line)
        XCTAssertEqual(
            lines.last?.hasPrefix("4 URLs: 4 saved; \(totalBytes) bytes in "), true, transcript, file: file, line: line)
        XCTAssertEqual(
            try fileNames(in: directory), ["2000000", "2000000 (1)", "2000000 (2)", "30"], file: file, line: line)
    }
}
