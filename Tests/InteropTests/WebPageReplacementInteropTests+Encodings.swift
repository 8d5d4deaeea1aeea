import Courier
import CourierTestSupport
import Foundation
import XCTest

/// The `encodings` fixture's seven pages (the charset said by the header, a byte-order mark, a
/// `<meta>`) in each mode: the page's own encoding is `responseEncoding`, and a rewritten page is
/// written back in it (ASI's testEncoding, with the saved page's bytes checked too).
extension WebPageReplacementInteropTests {
    func testThatEachEncodingsPageIsByteForByteTheSameWithDontModify() throws {
        for saved in try savedEncodingPages(modes: [.dontModify]) {
            let served = try Data(contentsOf: saved.folder.fileURL(.page(saved.case.fixture.page)))
            XCTAssertEqual(saved.data, served, saved.context)
        }
    }

    func testThatEachEncodingIsTheResponseEncodingAndTheSavedTextReadsBackInItInEveryMode() throws {
        for saved in try savedEncodingPages(modes: [.dontModify, .replaceWithData, .replaceWithLocalURLs]) {
            // A byte-order mark says UTF-16 and its byte order at once: decoding with .utf16
            // reads the mark, where .utf16LittleEndian would keep it as a U+FEFF character.
            let expected: String.Encoding = saved.case.encoding == .utf16LittleEndian ? .utf16 : saved.case.encoding
            XCTAssertEqual(saved.page.responseEncoding, expected, saved.context)
            let text = try XCTUnwrap(String(data: saved.data, encoding: saved.page.responseEncoding), saved.context)
            XCTAssertTrue(text.contains("<p id=\"text\">\(saved.case.text)</p>"), "\(saved.context): \(text)")
            XCTAssertEqual(saved.page.responseString(), text, saved.context)
            let image = try XCTUnwrap(saved.case.fixture.resources.first)
            let references = SavedWebPage(text).resourceReferences.map(\.value)
            switch saved.mode {
            case .dontModify:
                XCTAssertEqual(references, ["pic.png"], saved.context)
            case .replaceWithData:
                let uri = SavedWebPage.dataURI(try Data(contentsOf: saved.folder.fileURL(image)), type: "image/png")
                XCTAssertEqual(references, [uri], saved.context)
            case .replaceWithLocalURLs:
                XCTAssertEqual(references.count, 1, saved.context)
                let location = URL(string: references.first ?? "/", relativeTo: saved.destination)?.absoluteURL
                XCTAssertTrue(
                    references.first?.hasPrefix("saved_files/pic-") == true, "\(saved.context): \(references)")
                XCTAssertEqual(
                    location.flatMap { FileManager.default.contents(atPath: $0.path) },
                    try Data(contentsOf: saved.folder.fileURL(image)), saved.context)
            }
        }
    }

    func testThatARewrittenPageIsWrittenInItsOwnEncoding() throws {
        let japanese = Data([0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA])  // 日本語 in Shift_JIS
        for saved in try savedEncodingPages(modes: [.replaceWithData, .replaceWithLocalURLs]) {
            let bytes = saved.data
            switch saved.case.encoding {
            case .shiftJIS:
                XCTAssertNotNil(bytes.range(of: japanese), saved.context)
            case .isoLatin1:
                XCTAssertNotNil(bytes.range(of: Data("Caf".utf8) + [0xE9]), saved.context)
                XCTAssertNil(bytes.range(of: Data("é".utf8)), "\(saved.context): é in UTF-8")
            case .utf16LittleEndian:
                XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xFE], "\(saved.context): no byte-order mark")
                XCTAssertNotNil(bytes.range(of: try XCTUnwrap("日本語".data(using: .utf16LittleEndian))), saved.context)
            case .utf8:
                XCTAssertNotNil(bytes.range(of: Data("Café Grüße — 日本語".utf8)), saved.context)
            case .ascii:
                XCTAssertTrue(bytes.allSatisfy { $0 < 0x80 }, saved.context)
            default:
                XCTFail("\(saved.context): an encoding this test does not know")
            }
        }
    }

    func testThatTheHeadersCharsetBeatsAContradictingMetaInEveryMode() throws {
        let pages = try savedEncodingPages(modes: [.dontModify, .replaceWithData, .replaceWithLocalURLs]) {
            $0.name.contains("over a <meta>")
        }
        XCTAssertEqual(pages.count, 3)
        for saved in pages {
            XCTAssertEqual(saved.page.responseEncoding, .isoLatin1, saved.context)
            XCTAssertEqual(saved.page.responseString()?.contains("Café Grüße"), true, saved.context)
            XCTAssertNotNil(
                saved.data.range(of: Data("Gr".utf8) + [0xFC, 0xDF, 0x65]), "\(saved.context): Grüße in Latin-1")
        }
    }

    func testThatARewrittenPageDeclaresNoOtherEncodingThanTheOneItIsWrittenIn() throws {
        let pages = try savedEncodingPages(modes: [.replaceWithData, .replaceWithLocalURLs])
        for saved in pages {
            let text = try XCTUnwrap(String(data: saved.data, encoding: saved.page.responseEncoding), saved.context)
            for (name, attributes) in SavedWebPage(text).elements where name == "meta" {
                let charset = attributes["charset"] ?? attributes["content"]?.components(separatedBy: "charset=").last
                XCTAssertEqual(
                    charset.map(Self.encoding(named:)), saved.page.responseEncoding, "\(saved.context): \(attributes)")
            }
        }
        // What someone reading the saved copy sees: the header said Latin-1 over a <meta> saying
        // UTF-8, and the copy on disk has no header.
        let overMeta = try XCTUnwrap(
            pages.first { $0.case.name.contains("over a <meta>") && $0.mode == .replaceWithLocalURLs })
        XCTAssertTrue(
            try HeadlessChromium.dumpDOM(of: overMeta.destination).contains("<p id=\"text\">Café Grüße</p>"),
            "Chromium reads the saved Latin-1 page in another encoding")
    }

    /// The encoding a `<meta>` of these pages names (nil for a name none of them uses).
    static func encoding(named name: String) -> String.Encoding? {
        let encodings: [String: String.Encoding] = [
            "utf-8": .utf8, "us-ascii": .ascii, "iso-8859-1": .isoLatin1, "shift_jis": .shiftJIS, "utf-16": .utf16,
        ]
        return encodings[name.trimmingCharacters(in: .whitespaces).lowercased()]
    }

    /// A page of `encodings` as saved.
    struct SavedEncodingPage {
        var `case`: WebPageFixture.EncodingCase
        var mode: WebPageURLReplacementMode
        var folder: WebPageSiteFolder
        var page: WebPageRequest
        /// `responseData()`, checked to be the file at `destination`.
        var data: Data
        var destination: URL
        var context: String { "\(self.case.name), \(mode)" }
    }

    /// Each encoding case (that `including` accepts) fetched in each of `modes`, saved to
    /// `DIR/saved.html` (its resources in `DIR/saved_files/`).
    func savedEncodingPages(
        modes: [WebPageURLReplacementMode], including: (WebPageFixture.EncodingCase) -> Bool = { _ in true }
    ) throws -> [SavedEncodingPage] {
        let folder = try WebPageSite.shared.makeFolder()
        let cases = WebPageFixture.encodings(in: folder).filter(including)
        for encodingCase in cases { try folder.write(encodingCase.fixture) }
        var pages: [SavedEncodingPage] = []
        for encodingCase in cases {
            for mode in modes {
                let destination = try makeTemporaryDirectory().appendingPathComponent("saved.html")
                let page = fetch(encodingCase.fixture, in: folder, mode: mode, savingTo: destination)
                let data = try XCTUnwrap(page.responseData(), "\(encodingCase.name), \(mode)")
                XCTAssertEqual(try Data(contentsOf: destination), data, "\(encodingCase.name), \(mode)")
                pages.append(
                    SavedEncodingPage(
                        case: encodingCase, mode: mode, folder: folder, page: page, data: data, destination: destination
                    ))
            }
        }
        return pages
    }
}
