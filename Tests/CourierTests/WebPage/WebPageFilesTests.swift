import Foundation
import XCTest

@testable import Courier

/// Where a page saved with local URLs keeps its resources, and how the files refer to each
/// other (WebPageFiles). No sockets.
final class WebPageFilesTests: XCTestCase {
    func testThatResourcesGoInAFolderNamedAfterThePage() {
        XCTAssertEqual(WebPageFiles.resourceFolder(besidePage: "/tmp/saved/index.html"), "/tmp/saved/index_files")
        XCTAssertEqual(WebPageFiles.resourceFolder(besidePage: "/tmp/saved/page"), "/tmp/saved/page_files")
    }

    func testThatAFileNameKeepsTheURLsNameAndExtensionAndIsUniquePerURL() {
        let a = WebPageFiles.fileName(for: URL(string: "http://a.example/img/logo.png")!, kind: .image)
        let b = WebPageFiles.fileName(for: URL(string: "http://b.example/img/logo.png")!, kind: .image)
        XCTAssertTrue(a.hasPrefix("logo-") && a.hasSuffix(".png"), a)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a, WebPageFiles.fileName(for: URL(string: "http://a.example/img/logo.png#part")!, kind: .image))
    }

    func testThatAFileNameNeverCarriesAPathOrAScriptsExtension() {
        let hostile = WebPageFiles.fileName(for: URL(string: "http://a.example/x/..%2F..%2Fetc%2Fpasswd")!, kind: .image)
        XCTAssertFalse(hostile.contains("/"), hostile)
        XCTAssertEqual(
            WebPageFiles.fileName(for: URL(string: "http://a.example/frame.php?id=1")!, kind: .frame).split(separator: ".").last,
            "html")
        XCTAssertEqual(
            WebPageFiles.fileName(for: URL(string: "http://a.example/style")!, kind: .stylesheet).split(separator: ".").last,
            "css")
        XCTAssertEqual(WebPageFiles.fileName(for: URL(string: "http://a.example/")!, kind: .frame).prefix(9), "resource-")
    }

    func testThatReferencesAreRelativeToTheReferringFileAndEncoded() {
        XCTAssertEqual(
            WebPageFiles.reference(to: "/s/index_files/a b-1.png", from: "/s/index.html"), "index_files/a%20b-1.png")
        XCTAssertEqual(WebPageFiles.reference(to: "/s/index_files/a.png", from: "/s/index_files/site.css"), "a.png")
        XCTAssertEqual(WebPageFiles.reference(to: "/s/other/a.png", from: "/s/index_files/site.css"), "../other/a.png")
    }

    func testThatWithoutASavedPageAReferenceIsAFileURL() {
        XCTAssertEqual(WebPageFiles.reference(to: "/tmp/x/a.png", from: nil), "file:///tmp/x/a.png")
    }
}
