import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// What a `ProgressBar` writes, on a pseudo-terminal and into a file: lines that fit the
/// terminal, and a percent that agrees with the bytes beside it.
final class ProgressBarOutputTests: ServerTestCase {
    /// A request to report progress for; it never runs.
    private let request = HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!)

    /// The draws on a terminal's screen: each starts with a carriage return.
    private func draws(_ screen: String) -> [String] {
        screen.replacing(/\[settled [^\]]+\]/, with: "").components(separatedBy: "\r").filter {
            !$0.isEmpty && $0 != "\n"
        }
    }

    private func resize(_ terminal: Terminal, columns: UInt16) {
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        XCTAssertEqual(ioctl(terminal.master, UInt(TIOCSWINSZ), &size), 0)
    }

    func testThatALongLineIsLaidOutForTheTerminalsWidthAtEachDraw() throws {
        let terminal = try Terminal()
        resize(terminal, columns: 50)
        let label = "a-rather-long-name-for-a-download.tar.gz"
        let bar = ProgressBar(output: FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false), label: label)
        XCTAssertTrue(bar.isTerminal)
        bar.request(request, incrementDownloadSizeBy: 8_000_000)
        bar.request(request, didReceiveBytes: 2_000_000)
        try terminal.settle()
        let narrow = try XCTUnwrap(draws(terminal.screen).first)
        XCTAssertLessThanOrEqual(narrow.count, 49, narrow)
        // Shortened, not cut: the bar and its percent are whole.
        XCTAssertNotNil(narrow.firstMatch(of: /^a-rath.*…  \[[=> ]{10,40}\]    0%/), narrow.debugDescription)

        // The window grows: the next draw (a tenth of a second on) uses the room.
        resize(terminal, columns: 120)
        Thread.sleep(forTimeInterval: 0.15)
        bar.request(request, didReceiveBytes: 2_000_000)
        try terminal.settle()
        let wide = try XCTUnwrap(draws(terminal.screen).dropFirst().first)
        XCTAssertLessThanOrEqual(wide.count, 119, wide)
        XCTAssertTrue(wide.hasPrefix(label + "  ["), wide.debugDescription)
        XCTAssertTrue(wide.contains("   50%  4.0 MB / 8.0 MB"), wide.debugDescription)
        bar.finish()
    }

    func testThatThePercentIsTheBytesPrintedBesideIt() throws {
        // One bar for two requests: the first one's 1.0 is not the bar's.
        let file = try makeTemporaryDirectory().appendingPathComponent("bar.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        let output = try FileHandle(forWritingTo: file)
        let bar = ProgressBar(output: output)
        let other = HTTPRequest(url: URL(string: "http://127.0.0.1:9/other")!)
        bar.request(request, incrementDownloadSizeBy: 4_000_000)
        bar.request(other, incrementDownloadSizeBy: 4_000_000)
        bar.request(request, didReceiveBytes: 4_000_000)
        bar.setProgress(1)
        bar.request(other, didReceiveBytes: 4_000_000)
        bar.setProgress(1)
        bar.finish()
        try output.close()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            let match = try XCTUnwrap(line.firstMatch(of: /(\d+)%  ([\d.]+ [kM]?B) \/ ([\d.]+ [kM]?B)/), line)
            if match.1 == "100" { XCTAssertEqual(match.2, match.3, "100% of what was printed: \(line)") }
        }
        XCTAssertTrue(lines.contains { $0.contains(" 50%  4.0 MB / 8.0 MB") }, lines.joined(separator: "\n"))
        XCTAssertEqual(lines.filter { $0.contains("100%") }, [try XCTUnwrap(lines.last)], "one line at the end")
        XCTAssertTrue(lines.last?.contains("100%  8.0 MB / 8.0 MB") == true, lines.joined(separator: "\n"))
    }

    func testThatAFileGetsALineAtEveryTenthOfTheBytesHoweverFast() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("bar.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        let output = try FileHandle(forWritingTo: file)
        let bar = ProgressBar(output: output)
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        for _ in 0..<40 { bar.request(request, didReceiveBytes: 25_000) }
        bar.setProgress(1)
        bar.finish()
        try output.close()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        let percents = lines.compactMap { $0.firstMatch(of: /(\d+)%/).map { String($0.1) } }
        XCTAssertEqual(percents, ["0", "10", "20", "30", "40", "50", "60", "70", "80", "90", "100"], "\(lines)")
        XCTAssertTrue(lines.allSatisfy { $0.firstMatch(of: /^\[[=> ]{20}\] +\d+%  [\d.]+ k?M?B \/ 1\.0 MB/) != nil })
    }

    func testThatAQueueWhoseTotalGrowsIsNotDoneWhileRequestsWait() throws {
        // Added after go(): no HEAD first, so each request's size counts once its response comes,
        // and the first one done is all the queue's total knows of.
        let file = try makeTemporaryDirectory().appendingPathComponent("bar.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        let output = try FileHandle(forWritingTo: file)
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.maxConcurrentOperationCount = 1
        let bar = ProgressBar(queue: queue, output: output)
        queue.downloadProgressDelegate = bar
        queue.go()
        for _ in 0..<2 { queue.addOperation(HTTPRequest(url: server.url(.bytes(200_000)))) }
        waitUntilAllFinished(queue)
        bar.finish()
        try output.close()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertFalse(lines.isEmpty)
        for line in lines {
            let match = try XCTUnwrap(line.firstMatch(of: /(\d+)%  .*(\d)\/(\d) requests/), line)
            if match.2 != match.3 { XCTAssertNotEqual(match.1, "100", "requests still outstanding: \(line)") }
        }
        XCTAssertTrue(
            lines.last?.contains("100%  400.0 kB / 400.0 kB") == true && lines.last?.hasSuffix("2/2 requests") == true,
            lines.joined(separator: "\n"))
    }
}
