import XCTest

@testable import Courier

/// The text of a progress bar line, without a terminal.
final class ProgressLineTests: XCTestCase {
    func testThatALineShowsBarPercentBytesRateEtaAndRequests() {
        let line = ProgressLine(
            label: "", fraction: 0.5, bytesDone: 5_000_000, bytesTotal: 10_000_000, elapsed: 2, requests: (3, 8)
        ).text(barWidth: 10)
        XCTAssertEqual(line, "[=====>    ]   50%  5.0 MB / 10.0 MB  2.5 MB/s  ETA 2s  3/8 requests")
    }

    func testThatAFinishedLineHasAFullBarAndNoEta() {
        let line = ProgressLine(
            label: "get", fraction: 1, bytesDone: 1500, bytesTotal: 1500, elapsed: 3, requests: nil
        ).text(barWidth: 4)
        XCTAssertEqual(line, "get  [====]  100%  1.5 kB / 1.5 kB  500 B/s")
    }

    func testThatSimpleProgressShowsRequestsOnly() {
        let line = ProgressLine(
            label: "", fraction: 0.25, bytesDone: nil, bytesTotal: nil, elapsed: 1, requests: (1, 4)
        ).text(barWidth: 4)
        XCTAssertEqual(line, "[=>  ]   25%  ETA 3s  1/4 requests")
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
