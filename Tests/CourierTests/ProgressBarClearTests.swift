import XCTest

@testable import Courier

/// `ProgressBar.clear()`: a program interrupted mid-transfer erases the bar's line, so its
/// summary starts on a clean line, and the bar draws nothing after.
final class ProgressBarClearTests: XCTestCase {
    private let request = HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!)
    private let erase = "\r\u{1B}[K"

    private func bar(on terminal: Terminal) -> ProgressBar {
        ProgressBar(output: FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false))
    }

    /// What the terminal shows after the bar's first draw.
    private func screen(after drawn: String, on terminal: Terminal) throws -> String {
        try terminal.settle()
        let screen = terminal.screen
        let range = try XCTUnwrap(screen.range(of: drawn), screen.debugDescription)
        return String(screen[range.upperBound...]).replacing(/\[settled [^\]]+\]/, with: "")
    }

    func testThatClearErasesTheLineAndNothingIsDrawnAfter() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        bar.request(request, didReceiveBytes: 500_000)
        try terminal.settle()
        let drawn = terminal.screen
        XCTAssertTrue(drawn.hasPrefix("\r["), drawn.debugDescription)

        bar.clear()
        // Neither a completed fraction (always drawn at once) nor finish() draws again.
        bar.request(request, didReceiveBytes: 500_000)
        bar.setProgress(1)
        bar.finish()
        bar.clear()
        XCTAssertEqual(try screen(after: drawn, on: terminal), erase)
    }

    func testThatClearBeforeAnyDrawWritesNothing() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        bar.clear()
        bar.request(request, didReceiveBytes: 500_000)
        try terminal.settle()
        XCTAssertEqual(terminal.screen.replacing(/\[settled [^\]]+\]/, with: ""), "")
    }

    func testThatClearAfterFinishLeavesTheFinalLine() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        bar.request(request, incrementDownloadSizeBy: 1_000)
        bar.request(request, didReceiveBytes: 1_000)
        bar.setProgress(1)
        bar.finish()
        bar.clear()
        try terminal.settle()
        let screen = terminal.screen.replacing(/\[settled [^\]]+\]/, with: "")
        XCTAssertFalse(screen.contains("\u{1B}"), screen.debugDescription)
        // A cooked terminal shows the final "\n" as "\r\n"; the final line has the average rate.
        XCTAssertNotNil(
            screen.firstMatch(of: /100%  1\.0 kB \/ 1\.0 kB  [\d.]+ [kMGT]?B\/s\r\n$/), screen.debugDescription)
    }

    func testThatClearWritesNothingWhenNotOnATerminal() throws {
        let pipe = Pipe()
        let bar = ProgressBar(output: pipe.fileHandleForWriting)
        XCTAssertFalse(bar.isTerminal)
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        bar.request(request, didReceiveBytes: 500_000)
        bar.clear()
        bar.setProgress(1)
        bar.finish()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: try XCTUnwrap(pipe.fileHandleForReading.readToEnd()), as: UTF8.self)
        XCTAssertEqual(
            written, "[>                   ]    0%  0 B / 1.0 MB\n[==========>         ]   50%  500.0 kB / 1.0 MB\n",
            "the lines before clear(), and nothing after")
    }

    func testThatClearFromAnotherThreadIsNeverFollowedByADraw() throws {
        let terminal = try Terminal()
        let bar = bar(on: terminal)
        bar.request(request, incrementDownloadSizeBy: 1_000_000_000)
        let started = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let request = request
        Thread.detachNewThread {
            // A completed fraction is drawn at once: as many draws as the thread can make.
            for index in 0..<2_000 {
                bar.request(request, didReceiveBytes: 1_000)
                bar.setProgress(1)
                if index == 100 { started.signal() }
            }
            done.signal()
        }
        XCTAssertEqual(started.wait(timeout: .now() + 10), .success)
        bar.clear()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        try terminal.settle()
        let screen = terminal.screen.replacing(/\[settled [^\]]+\]/, with: "")
        XCTAssertTrue(screen.hasSuffix(erase), String(screen.suffix(200)).debugDescription)
        XCTAssertEqual(screen.components(separatedBy: erase).count, 2, "erased once")
    }
}
