import XCTest

@testable import Courier

/// The progress bar's rate: the recent one, over a sliding window, driven here by explicit
/// timestamps (no sleeps).
final class RateMeterTests: XCTestCase {
    /// Feeds `perSecond` units a second from `start` for `seconds`, a sample every tenth, as a bar
    /// draws; returns the count at the end.
    @discardableResult
    private func feed(
        _ meter: inout RateMeter, from start: TimeInterval, seconds: Int, perSecond: Int64, count: Int64 = 0
    ) -> Int64 {
        var count = count
        for tick in 1...(seconds * 10) {
            count += perSecond / 10
            meter.add(count, at: start + Double(tick) / 10)
        }
        return count
    }

    func testThatASteadyTransferReadsItsRate() throws {
        var meter = RateMeter()
        meter.add(0, at: 100)
        feed(&meter, from: 100, seconds: 3, perSecond: 1_000_000)
        XCTAssertEqual(try XCTUnwrap(meter.rate(at: 103)), 1_000_000, accuracy: 1)
    }

    func testThatTheRateIsTheRecentOneNotTheAverageSinceTheStart() throws {
        var meter = RateMeter()
        meter.add(0, at: 0)
        // Ten seconds fast, then six slow: the average since the start is over 600 kB/s.
        let fast = feed(&meter, from: 0, seconds: 10, perSecond: 1_000_000)
        feed(&meter, from: 10, seconds: 6, perSecond: 100_000, count: fast)
        XCTAssertEqual(try XCTUnwrap(meter.rate(at: 16)), 100_000, accuracy: 1)
        XCTAssertEqual(try XCTUnwrap(meter.average), 10_600_000 / 16, accuracy: 1)
    }

    func testThatAStallFallsToZeroWithinTheWindow() throws {
        var meter = RateMeter(window: 5)
        meter.add(0, at: 0)
        let count = feed(&meter, from: 0, seconds: 10, perSecond: 1_000_000)
        // Nothing more arrives; the bar still samples at each draw.
        for tick in 1...25 { meter.add(count, at: 10 + Double(tick) / 10) }
        let halfway = try XCTUnwrap(meter.rate(at: 12.5))
        XCTAssertEqual(halfway, 500_000, accuracy: 25_000, "half of the window is stalled")
        for tick in 26...51 { meter.add(count, at: 10 + Double(tick) / 10) }
        XCTAssertEqual(meter.rate(at: 15.1), 0, "the whole window is stalled")
    }

    func testThatAStallReadsZeroEvenWithSparseSamples() {
        var meter = RateMeter(window: 5)
        meter.add(0, at: 0)
        let count = feed(&meter, from: 0, seconds: 2, perSecond: 1_000_000)
        // A stalled terminal bar redraws only once a second.
        for second in 3...8 { meter.add(count, at: Double(second)) }
        XCTAssertEqual(meter.rate(at: 8), 0)
    }

    func testThatTheRateIsUnknownUntilTheSamplesSpanHalfASecond() {
        var meter = RateMeter()
        XCTAssertNil(meter.rate(at: 0))
        meter.add(0, at: 0)
        meter.add(50_000, at: 0.3)
        XCTAssertNil(meter.rate(at: 0.3))
        meter.add(100_000, at: 0.5)
        XCTAssertEqual(meter.rate(at: 0.5), 200_000)
    }

    func testThatTheAverageOfARunShorterThanADrawIntervalIsFromTheLastSampleBeforeTheFirstByte() throws {
        var meter = RateMeter()
        // Two seconds of HEAD probes, then the whole megabyte within a twentieth of a second.
        meter.add(0, at: 0)
        meter.add(0, at: 2)
        meter.add(1_000_000, at: 2.05)
        // The final draw comes a while later: the wait for it is no part of the transfer.
        meter.add(1_000_000, at: 3)
        XCTAssertEqual(try XCTUnwrap(meter.average), 20_000_000, accuracy: 1)
    }

    func testThatACountGoingBackReadsZeroNotNegative() {
        var meter = RateMeter()
        meter.add(1_000_000, at: 0)
        // An attempt restarted: its bytes no longer count.
        meter.add(0, at: 1)
        XCTAssertEqual(meter.rate(at: 1), 0)
    }

    func testThatAnOlderSampleIsIgnoredAndTheSamplesStayFew() {
        var meter = RateMeter(window: 5)
        meter.add(0, at: 0)
        feed(&meter, from: 0, seconds: 100, perSecond: 10_000)
        meter.add(0, at: 50)
        XCTAssertEqual(meter.samples.last, RateMeter.Sample(time: 100, count: 1_000_000))
        // The window and its anchor, at ten samples a second.
        XCTAssertLessThanOrEqual(meter.samples.count, 52)
        XCTAssertEqual(meter.rate(at: 100), 10_000)
    }
}
