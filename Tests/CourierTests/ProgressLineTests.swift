import XCTest

@testable import Courier

/// The text of a progress bar line, without a terminal.
final class ProgressLineTests: XCTestCase {
    func testThatALineShowsBarPercentBytesRateEtaAndRequests() {
        let line = ProgressLine(
            completion: Completion(done: 5_000_000, total: 10_000_000, outstanding: true), bytesDone: 5_000_000,
            bytesTotal: 10_000_000, rate: 2_500_000, eta: 2, requests: (3, 8)
        ).text(barWidth: 10)
        XCTAssertEqual(line, "[=====>    ]   50%  5.0 MB / 10.0 MB  2.5 MB/s  ETA 2s  3/8 requests")
    }

    func testThatAFinishedLineHasAFullBarAndNoEta() {
        let completion = Completion(done: 1500, total: 1500, outstanding: false)
        let line = ProgressLine(
            label: "get", completion: completion, bytesDone: 1500, bytesTotal: 1500, rate: 500,
            eta: ProgressLine.eta(completion, rate: 500)
        ).text(barWidth: 4)
        XCTAssertEqual(line, "get  [====]  100%  1.5 kB / 1.5 kB  500 B/s")
    }

    func testThatSimpleProgressShowsRequestsOnly() {
        let line = ProgressLine(
            completion: Completion(fraction: 0.25, outstanding: true), rate: 250_000, eta: 3, requests: (1, 4)
        ).text(barWidth: 4)
        XCTAssertEqual(line, "[=>  ]   25%  ETA 3s  1/4 requests")
    }

    func testThatTheEtaComesFromTheRateAndIsUnknownWhenStalled() {
        let completion = Completion(done: 2_000_000, total: 10_000_000, outstanding: false)
        XCTAssertEqual(ProgressLine.eta(completion, rate: 1_000_000), 8)
        XCTAssertEqual(ProgressLine.eta(completion, rate: 0), .infinity)
        XCTAssertNil(ProgressLine.eta(completion, rate: nil), "no figure before the rate is known")
        let line = ProgressLine(
            completion: completion, bytesDone: 2_000_000, bytesTotal: 10_000_000, rate: 0,
            eta: ProgressLine.eta(completion, rate: 0)
        ).text()
        XCTAssertTrue(line.hasSuffix("2.0 MB / 10.0 MB  0 B/s  ETA ?"), line)
    }

    func testThatUnitsAndDurationsRead() {
        XCTAssertEqual(ProgressLine.bytes(999), "999 B")
        XCTAssertEqual(ProgressLine.bytes(1_000), "1.0 kB")
        XCTAssertEqual(ProgressLine.bytes(2_500_000_000), "2.5 GB")
        XCTAssertEqual(ProgressLine.duration(59.2), "1m00s")
        XCTAssertEqual(ProgressLine.duration(3725), "1h02m")
        XCTAssertEqual(ProgressLine.duration(.infinity), "?")
    }
}

/// The percent and the bar's fill come from one ratio, the bytes the line prints.
final class CompletionTests: XCTestCase {
    func testThatThePercentIsTheBytesPrinted() {
        XCTAssertEqual(Completion(done: 4_100_000, total: 8_000_000, outstanding: false).percent, 51)
        XCTAssertEqual(Completion(done: 29, total: 100, outstanding: false).percent, 29, "integers, not 28.999…")
        XCTAssertEqual(Completion(done: 0, total: 0, outstanding: false).percent, 0)
    }

    func testThatOnlyDoneEqualToTotalIsComplete() {
        let almost = Completion(done: 7_999_999, total: 8_000_000, outstanding: false)
        XCTAssertEqual(almost.percent, 99)
        XCTAssertEqual(almost.filled(of: 40), 39, "a bar is full only when the work is")
        // Bytes counted before the size that goes with them: not done, whatever the ratio.
        let ahead = Completion(done: 9_000_000, total: 8_000_000, outstanding: false)
        XCTAssertEqual(ahead.percent, 99)
        XCTAssertFalse(ahead.isComplete)
        let done = Completion(done: 8_000_000, total: 8_000_000, outstanding: false)
        XCTAssertEqual(done.percent, 100)
        XCTAssertEqual(done.filled(of: 40), 40)
    }

    func testThatOutstandingRequestsKeepItBelowAHundred() {
        // A queue whose total grows as responses arrive: all it knows of is done, not all it has.
        let waiting = Completion(done: 2_000_000, total: 2_000_000, outstanding: true)
        XCTAssertEqual(waiting.percent, 99)
        XCTAssertEqual(waiting.filled(of: 20), 19)
        XCTAssertEqual(Completion(fraction: 1, outstanding: true).percent, 99)
    }

    func testThatAFractionGivesThePercentWithoutBytes() {
        XCTAssertEqual(Completion(fraction: 0.25, outstanding: false).percent, 25)
        XCTAssertEqual(Completion(fraction: 0.999_999_9, outstanding: false).percent, 99)
        XCTAssertEqual(Completion(fraction: 1, outstanding: false).percent, 100)
        XCTAssertEqual(Completion(fraction: 1.5, outstanding: false).percent, 100)
        XCTAssertEqual(Completion(fraction: -1, outstanding: false).percent, 0)
    }
}
