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
