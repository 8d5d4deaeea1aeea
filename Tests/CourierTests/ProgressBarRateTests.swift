import XCTest

@testable import Courier

/// A terminal bar's rate and ETA are the recent ones, and a stall shows: driven by a clock the
/// test sets, with the bar drawing into a file it takes for a terminal 100 columns wide.
final class ProgressBarRateTests: XCTestCase {
    private let request = HTTPRequest(url: URL(string: "http://127.0.0.1:9/")!)
    private let now = Locked<TimeInterval>(1_000)

    private func makeBar(output: FileHandle, stallRedrawInterval: TimeInterval = 60) -> ProgressBar {
        let now = now
        return ProgressBar(
            queue: nil, output: output, label: "", isTerminal: true, columns: { 100 },
            clock: { now.current }, stallRedrawInterval: stallRedrawInterval)
    }

    private func makeOutput() throws -> (URL, FileHandle) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bar-\(UUID().uuidString).txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        addTeardownBlock { try? FileManager.default.removeItem(at: file) }
        return (file, try FileHandle(forWritingTo: file))
    }

    private func lastDraw(in file: URL) throws -> String {
        let text = try String(contentsOf: file, encoding: .utf8)
        return try XCTUnwrap(text.components(separatedBy: "\r").last { !$0.isEmpty })
    }

    /// `bytesPerTick` bytes every eighth of a second for `seconds` (an eighth: exact in binary,
    /// and longer than the tenth between two draws).
    private func feed(_ bar: ProgressBar, seconds: Int, bytesPerTick: Int64) {
        for _ in 0..<(seconds * 8) {
            now.withLock { $0 += 0.125 }
            bar.request(request, didReceiveBytes: bytesPerTick)
        }
    }

    func testThatTheRateAndEtaAreTheRecentOnes() throws {
        let (file, output) = try makeOutput()
        let bar = makeBar(output: output)
        bar.request(request, incrementDownloadSizeBy: 100_000_000)
        feed(bar, seconds: 4, bytesPerTick: 1_000_000)  // 8 MB/s
        feed(bar, seconds: 6, bytesPerTick: 12_500)  // then 100 kB/s
        // Since the start that is 3.26 MB/s; over the last five seconds it is 100 kB/s.
        let line = try lastDraw(in: file)
        XCTAssertTrue(line.contains("  32%  32.6 MB / 100.0 MB  100.0 kB/s  ETA 11m14s"), line.debugDescription)
        bar.finish()
        let final = try lastDraw(in: file)
        XCTAssertTrue(final.hasSuffix("32.6 MB / 100.0 MB  3.3 MB/s\n"), "the average: \(final.debugDescription)")
    }

    func testThatAStalledBarRedrawsWithNoRateLeft() throws {
        let (file, output) = try makeOutput()
        let bar = makeBar(output: output, stallRedrawInterval: 0.05)
        bar.request(request, incrementDownloadSizeBy: 100_000_000)
        feed(bar, seconds: 2, bytesPerTick: 1_000_000)
        XCTAssertTrue(try lastDraw(in: file).contains("16.0 MB / 100.0 MB  8.0 MB/s  ETA 11s"))
        // Nothing arrives for six seconds: the bar redraws on its own.
        now.withLock { $0 += 6 }
        let deadline = Date().addingTimeInterval(5)
        var line = try lastDraw(in: file)
        while !line.contains("0 B/s"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            line = try lastDraw(in: file)
        }
        XCTAssertTrue(line.contains("16.0 MB / 100.0 MB  0 B/s  ETA ?"), line.debugDescription)
        bar.clear()
    }
}
