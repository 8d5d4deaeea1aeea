import XCTest

@testable import courier

/// The naming rules, unit by unit: what a download is called and how a taken name is avoided.
final class OutputFileNamerTests: XCTestCase {
    func testThatTheNameIsTheLastPathComponent() {
        let names = [
            "http://127.0.0.1/bytes/1048576": "1048576",
            "http://127.0.0.1/files/report.pdf?version=2#top": "report.pdf",
            "http://127.0.0.1/": "index.html",
            "http://127.0.0.1": "index.html",
            "http://127.0.0.1/docs/": "index.html",
            "http://127.0.0.1/a%20b.txt": "a b.txt",
            "http://127.0.0.1/a%2Fb": "a_b",
            "http://127.0.0.1/line%0Abreak": "line_break",
            "http://127.0.0.1/..": "index.html",
        ]
        for (url, name) in names {
            XCTAssertEqual(OutputFileNamer.baseName(for: URL(string: url)!), name, url)
        }
    }

    func testThatANumberGoesBeforeTheExtension() {
        XCTAssertEqual(OutputFileNamer.candidate("report.pdf", attempt: 0), "report.pdf")
        XCTAssertEqual(OutputFileNamer.candidate("report.pdf", attempt: 2), "report (2).pdf")
        XCTAssertEqual(OutputFileNamer.candidate("site.tar.gz", attempt: 1), "site (1).tar.gz")
        XCTAssertEqual(OutputFileNamer.candidate("1048576", attempt: 1), "1048576 (1)")
        XCTAssertEqual(OutputFileNamer.candidate(".profile", attempt: 1), ".profile (1)")
        XCTAssertEqual(OutputFileNamer.candidate("v1.2 notes", attempt: 1), "v1.2 notes (1)")
    }

    func testThatALongNameIsShortenedToFitAFileName() {
        let long = String(repeating: "é", count: 300) + ".txt"
        for attempt in [0, 1, 9999] {
            let name = OutputFileNamer.candidate(long, attempt: attempt)
            XCTAssertLessThanOrEqual(name.utf8.count, OutputFileNamer.maxNameBytes)
            XCTAssertTrue(name.hasSuffix(attempt == 0 ? "é.txt" : "é (\(attempt)).txt"), name)
        }
    }
}
