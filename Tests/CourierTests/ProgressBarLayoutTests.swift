import XCTest

@testable import Courier

/// A progress line laid out for a terminal's width: never into the last column, the bar always
/// there, and the parts dropped in the documented order (label shortened, then ETA, requests,
/// rate, bytes).
final class ProgressBarLayoutTests: XCTestCase {
    private let label = "ubuntu-24.04-desktop-amd64.iso"

    private func line(label: String = "", done: Int64 = 2_700_000_000) -> ProgressLine {
        let completion = Completion(done: done, total: 6_000_000_000, outstanding: true)
        return ProgressLine(
            label: label, completion: completion, bytesDone: done, bytesTotal: 6_000_000_000, rate: 31_400_000,
            eta: ProgressLine.eta(completion, rate: 31_400_000), requests: (3, 8))
    }

    /// What a laid-out line shows.
    private struct Shown: Equatable {
        var label: String?
        var bar: Int
        var percent: String
        var bytes = false
        var rate = false
        var eta = false
        var requests = false
    }

    private func shown(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> Shown {
        let match = try XCTUnwrap(
            text.wholeMatch(of: /(?:(.+?)  )?\[([=> ]+)\]  ( {0,2}\d{1,3}%)(.*)/), "not a bar line: \(text)",
            file: file, line: line)
        let rest = String(match.4)
        return Shown(
            label: match.1.map(String.init), bar: match.2.count, percent: String(match.3),
            bytes: rest.contains(" / "), rate: rest.contains("/s"), eta: rest.contains("ETA "),
            requests: rest.contains(" requests"))
    }

    func testThatEachWidthGetsTheMostImportantPartsThatFit() throws {
        let expected: [Int: Shown] = [
            120: Shown(label: label, bar: 20, percent: " 45%", bytes: true, rate: true, eta: true, requests: true),
            80: Shown(label: "ubuntu-24.0…", bar: 10, percent: " 45%", bytes: true, rate: true, requests: true),
            60: Shown(label: "ubuntu-24.04-desk…", bar: 10, percent: " 45%", bytes: true),
            40: Shown(label: "ubuntu-24.04-deskt…", bar: 10, percent: " 45%"),
        ]
        for (columns, shows) in expected {
            let text = line(label: label).text(fitting: columns)
            XCTAssertLessThanOrEqual(text.count, columns - 1, text)
            XCTAssertEqual(try shown(text), shows, "\(columns) columns: \(text)")
        }
    }

    func testThatWithoutALabelTheBarTakesTheRoomUpToFortyCells() throws {
        let expected: [Int: Shown] = [
            200: Shown(bar: 40, percent: " 45%", bytes: true, rate: true, eta: true, requests: true),
            120: Shown(bar: 40, percent: " 45%", bytes: true, rate: true, eta: true, requests: true),
            80: Shown(bar: 12, percent: " 45%", bytes: true, rate: true, eta: true, requests: true),
            60: Shown(bar: 18, percent: " 45%", bytes: true, rate: true),
            40: Shown(bar: 10, percent: " 45%", bytes: true),
        ]
        for (columns, shows) in expected {
            let text = line().text(fitting: columns)
            XCTAssertLessThanOrEqual(text.count, columns - 1, text)
            XCTAssertEqual(try shown(text), shows, "\(columns) columns: \(text)")
        }
    }

    func testThatEveryWidthFitsAndDropsPartsInOrder() throws {
        for columns in 1...200 {
            for label in ["", "get", label] {
                let text = line(label: label).text(fitting: columns)
                XCTAssertLessThanOrEqual(text.count, max(0, columns - 1), "\(columns) columns: \(text)")
                guard columns >= 20 else { continue }
                let shows = try shown(text)
                XCTAssertTrue((10...40).contains(shows.bar), "\(columns) columns: \(text)")
                // A part is shown only if every more important one is.
                let kept = [shows.bytes, shows.rate, shows.requests, shows.eta]
                XCTAssertEqual(kept, kept.sorted { $0 && !$1 }, "\(columns) columns: \(text)")
                // The label is shortened before anything else goes.
                if let shownLabel = shows.label, shownLabel != label {
                    XCTAssertTrue(shownLabel.hasSuffix("…"), text)
                    XCTAssertGreaterThanOrEqual(shownLabel.count, ProgressLine.minimumLabel, text)
                    // Shortened only as far as needed: the bar has just its minimum beside it.
                    XCTAssertEqual(shows.bar, ProgressLine.minimumBar, text)
                }
            }
        }
    }

    func testThatTheBarKeepsItsWidthAsTheNumbersGrow() throws {
        for columns in [60, 80, 100] {
            let early = try shown(line(done: 1_000).text(fitting: columns))
            let late = try shown(line(done: 5_999_999_999).text(fitting: columns))
            XCTAssertEqual(early.bar, late.bar, "\(columns) columns")
        }
    }

    func testThatATinyTerminalStillGetsABarOrAPercent() {
        XCTAssertEqual(line().text(fitting: 12), "[=> ]   45%")
        XCTAssertEqual(line().text(fitting: 5), " 45%")
        XCTAssertEqual(line().text(fitting: 3), " 4")
        XCTAssertEqual(line().text(fitting: 1), "")
    }
}
