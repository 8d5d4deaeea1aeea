import CourierTestSupport
import Foundation
import XCTest

/// `courier page` as a user runs it against nginx: issue 35's bar, a page of 200 resources saved
/// in one run, each fetched once, that renders in headless Chromium with the network off.
extension CLIInteropTests {
    private func makePageSite() throws -> (WebPageSiteFolder, WebPageFixture) {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.mixedResources(in: folder, count: 200)
        try folder.write(fixture)
        return (folder, fixture)
    }

    func testThatCourierPageSavesATwoHundredResourcePageThatRendersOfflineInChromium() throws {
        let (folder, fixture) = try makePageSite()
        let output = try InteropServers.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try courier(["page", folder.url(fixture.page).absoluteString, "-o", output.path], timeout: 120)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests, "each file once, nothing else")
        let saved = output.appendingPathComponent("index.html")
        let files = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("index_files").path)
        XCTAssertEqual(files.count, 200, "every resource beside the page")
        let page = try String(contentsOf: saved, encoding: .utf8)
        XCTAssertFalse(page.contains("http://"), "no reference left to the server")
        let report = try HeadlessChromium.loadReport(forPageAt: saved)
        XCTAssertEqual(report.images.count, 66)
        XCTAssertTrue(report.images.allSatisfy { $0 }, "\(report.images)")
    }

    func testThatCourierPageSingleFileOfTwoHundredResourcesRendersOfflineInChromium() throws {
        let (folder, fixture) = try makePageSite()
        let output = try InteropServers.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: output) }
        let saved = output.appendingPathComponent("page.html")
        let run = try courier(
            ["page", folder.url(fixture.page).absoluteString, "--single-file", "-o", saved.path], timeout: 120)
        XCTAssertEqual(run.status, 0, run.standardError)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path), ["page.html"], "one file")
        let page = try String(contentsOf: saved, encoding: .utf8)
        XCTAssertFalse(page.contains("mixed/"), "every resource inlined")
        let report = try HeadlessChromium.loadReport(forPageAt: saved)
        XCTAssertEqual(report.images.count, 66)
        XCTAssertTrue(report.images.allSatisfy { $0 }, "\(report.images)")
    }
}
