import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// What a bar on a terminal says about its total while the total is still being learnt, and the
/// average rate its final line carries, however short the run.
final class ProgressBarTotalTests: ServerTestCase {
    private let request = HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!)

    /// The bar's draws on a terminal's screen: each starts with a carriage return and the bar.
    private func draws(_ screen: String) -> [String] {
        screen.replacing(/\[settled [^\]]+\]/, with: "").components(separatedBy: "\r").map {
            $0.trimmingCharacters(in: .newlines)
        }.filter { $0.hasPrefix("[") }
    }

    private func output(on terminal: Terminal) -> FileHandle {
        FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
    }

    func testThatAQueuesTotalIsMarkedAsGrowingUntilEveryHeadProbeHasAnswered() throws {
        let terminal = try Terminal()
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let bar = ProgressBar(queue: queue, output: output(on: terminal))
        queue.downloadProgressDelegate = bar
        queue.addOperation(HTTPRequest(url: server.url(.bytes(1_000_000))))
        // Its HEAD answers a second later: until then the total is the first request's alone.
        queue.addOperation(HTTPRequest(url: server.url(.delay(milliseconds: 1000))))
        queue.go()
        waitUntilAllFinished(queue)
        bar.finish()
        try terminal.settle()
        let draws = draws(terminal.screen)
        let growing = draws.prefix { $0.contains("+  ") || $0.contains(" / ?") }
        XCTAssertTrue(growing.contains { $0.contains("   0%  0 B / 1.0 MB+") }, draws.joined(separator: "\n"))
        for draw in growing { XCTAssertFalse(draw.contains("ETA"), "no ETA from a partial total: \(draw)") }
        for draw in draws.dropFirst(growing.count) {
            XCTAssertFalse(draw.contains("+  ") || draw.contains(" / ?"), "the total is known: \(draw)")
        }
        let last = try XCTUnwrap(draws.last)
        XCTAssertTrue(last.contains("100%  1.0 MB / 1.0 MB  "), last)
    }

    func testThatABarWithoutAQueueShowsAnUnknownTotalUntilAContentLengthIsGiven() throws {
        let terminal = try Terminal()
        let now = Locked<TimeInterval>(1_000)
        let bar = ProgressBar(
            queue: nil, output: output(on: terminal), label: "", isTerminal: true, columns: { 100 },
            clock: { now.current })
        // A request starting sets its delegate to 0; its Content-Length comes with the headers.
        bar.setProgress(0)
        now.withLock { $0 += 0.2 }
        bar.request(request, incrementDownloadSizeBy: 2_000_000)
        bar.clear()
        try terminal.settle()
        let draws = draws(terminal.screen)
        XCTAssertEqual(draws.count, 2, draws.joined(separator: "\n"))
        XCTAssertTrue(draws.first?.hasSuffix("   0%  0 B / ?") == true, draws.joined(separator: "\n"))
        XCTAssertTrue(draws.last?.contains("   0%  0 B / 2.0 MB") == true, draws.joined(separator: "\n"))
    }

    func testThatTheFinalLineOfAFastQueueCarriesTheAverageRate() throws {
        let terminal = try Terminal()
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let bar = ProgressBar(queue: queue, output: output(on: terminal))
        queue.downloadProgressDelegate = bar
        for _ in 0..<3 { queue.addOperation(HTTPRequest(url: server.url(.bytes(200_000)))) }
        queue.go()
        waitUntilAllFinished(queue)
        bar.finish()
        try terminal.settle()
        let last = try XCTUnwrap(draws(terminal.screen).last)
        XCTAssertNotNil(
            last.firstMatch(of: /100%  600\.0 kB \/ 600\.0 kB  [\d.]+ [kMGT]?B\/s  3\/3 requests/),
            last.debugDescription)
    }

    func testThatTheFinalLineOfARunShorterThanADrawIntervalCarriesTheAverageRate() throws {
        let terminal = try Terminal()
        let now = Locked<TimeInterval>(1_000)
        let bar = ProgressBar(
            queue: nil, output: output(on: terminal), label: "", isTerminal: true, columns: { 100 },
            clock: { now.current })
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        now.withLock { $0 += 0.05 }
        bar.request(request, didReceiveBytes: 1_000_000)
        bar.setProgress(1)
        bar.finish()
        try terminal.settle()
        let last = try XCTUnwrap(draws(terminal.screen).last)
        XCTAssertTrue(last.hasSuffix("100%  1.0 MB / 1.0 MB  20.0 MB/s"), last.debugDescription)
    }

    func testThatAPlainLogOfAFastRunEndsWithTheAverageRate() throws {
        let pipe = Pipe()
        let now = Locked<TimeInterval>(1_000)
        let bar = ProgressBar(
            queue: nil, output: pipe.fileHandleForWriting, label: "", isTerminal: false, columns: { 100 },
            clock: { now.current })
        bar.request(request, incrementDownloadSizeBy: 1_000_000)
        now.withLock { $0 += 0.05 }
        bar.request(request, didReceiveBytes: 1_000_000)
        bar.setProgress(1)
        bar.finish()
        try pipe.fileHandleForWriting.close()
        let written = String(decoding: try XCTUnwrap(pipe.fileHandleForReading.readToEnd()), as: UTF8.self)
        XCTAssertTrue(
            written.hasSuffix("[====================]  100%  1.0 MB / 1.0 MB  20.0 MB/s\n"), written.debugDescription)
    }
}
