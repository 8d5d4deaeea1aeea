import XCTest

@testable import Courier

/// `ProgressBar.print(_:)`: a program's own lines land whole above the bar on a terminal, as
/// plain lines elsewhere, and still appear once the bar has ended.
final class ProgressBarPrintTests: XCTestCase {
    private let request = HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!)

    private func bar(on terminal: Terminal) -> ProgressBar {
        ProgressBar(output: FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false))
    }

    /// What the user reads on the terminal, without the empty line after the last newline.
    private func screenLines(_ terminal: Terminal) throws -> [String] {
        try terminal.settle()
        var lines = terminalScreenLines(terminal.screen)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    func testThatPrintedLinesLandAboveTheBarAndTheBarIsRedrawnBelowThem() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        XCTAssertTrue(bar.isTerminal)
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        bar.request(request, didReceiveBytes: 500_000)
        bar.print("saved a.txt")
        bar.print("saved b.txt")
        var lines = try screenLines(terminal)
        XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.prefix(2), ["saved a.txt", "saved b.txt"], lines.joined(separator: "\n"))
        XCTAssertNotNil(
            lines.last?.wholeMatch(of: /\[=+>? *\]   50%  500\.0 kB \/ 1\.0 MB/), lines.joined(separator: "\n"))

        bar.request(request, didReceiveBytes: 500_000)
        bar.setProgress(1)
        bar.finish()
        lines = try screenLines(terminal)
        XCTAssertEqual(lines.prefix(2), ["saved a.txt", "saved b.txt"], lines.joined(separator: "\n"))
        XCTAssertEqual(lines.count, 3, "the bar ends on its own line, below them: \(lines)")
        XCTAssertTrue(lines.last?.contains("100%  1.0 MB / 1.0 MB") == true, lines.joined(separator: "\n"))
    }

    func testThatLinesPrintedFromManyThreadsEachLandWholeAboveTheBar() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        bar.request(request, incrementDownloadSizeBy: 1_000_000_000)
        let request = request
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<50 {
                // A completed fraction is drawn at once: draws come between the prints.
                bar.request(request, didReceiveBytes: 1_000)
                bar.setProgress(1)
                bar.print("thread \(thread) line \(index)")
            }
        }
        bar.clear()
        let lines = try screenLines(terminal)
        let expected = (0..<8).flatMap { thread in (0..<50).map { "thread \(thread) line \($0)" } }
        XCTAssertEqual(lines.sorted(), expected.sorted(), "every line whole, once, and no bar left among them")
    }

    func testThatAPrintAfterFinishOrClearWritesTheLineAndNoBar() throws {
        let terminal = try Terminal()
        let finished = bar(on: terminal)
        finished.request(request, incrementDownloadSizeBy: 1_000)
        finished.request(request, didReceiveBytes: 1_000)
        finished.setProgress(1)
        finished.finish()
        finished.print("after finish")
        let cleared = bar(on: terminal)
        cleared.request(request, incrementDownloadSizeBy: 1_000)
        cleared.clear()
        cleared.print("after clear")
        let lines = try screenLines(terminal)
        XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
        XCTAssertTrue(lines.first?.contains("100%  1.0 kB / 1.0 kB") == true, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.dropFirst(), ["after finish", "after clear"])
    }

    func testThatAPrintBeforeTheFirstDrawIsJustTheLine() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        bar.print("starting")
        try terminal.settle()
        XCTAssertEqual(terminal.screen.replacing(/\[settled [^\]]+\]/, with: ""), "starting\r\n")
        bar.clear()
    }

    func testThatOffATerminalAPrintIsAPlainLineBetweenTheProgressLines() throws {
        let pipe = Pipe()
        let bar = ProgressBar(output: pipe.fileHandleForWriting)
        XCTAssertFalse(bar.isTerminal)
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        bar.print("saved a.txt")
        bar.request(request, didReceiveBytes: 500_000)
        bar.finish()
        bar.print("done")
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: try XCTUnwrap(pipe.fileHandleForReading.readToEnd()), as: UTF8.self)
        let lines = written.split(separator: "\n").map(String.init)
        XCTAssertFalse(written.contains("\r") || written.contains("\u{1B}"), written.debugDescription)
        XCTAssertEqual(lines.count, 5, written)
        XCTAssertTrue(lines[0].hasSuffix("   0%  0 B / 1.0 MB"), written)
        XCTAssertEqual(lines[1], "saved a.txt")
        XCTAssertTrue(lines[2].hasSuffix("  50%  500.0 kB / 1.0 MB"), written)
        XCTAssertEqual(lines[4], "done")
    }
}
