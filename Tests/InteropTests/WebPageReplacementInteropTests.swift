import Courier
import CourierTestSupport
import Foundation
import XCTest

/// What a page saved by WebPageRequest holds after each `urlReplacementMode`, fetched from the
/// web-page site (nginx, two origins): the bytes kept, the data URIs and the files beside it, and
/// what headless Chromium loads from the saved copy with no network at all.
/// Encodings are in `+Encodings`, tag soup and overridden hooks in `+Hooks`.
final class WebPageReplacementInteropTests: XCTestCase {
    // MARK: - dontModify

    func testThatDontModifyKeepsThePageByteForByteInMemoryAndAtTheDestination() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.everyElement(in: folder)
        try folder.write(fixture)
        let destination = try makeTemporaryDirectory().appendingPathComponent("index.html")

        let page = fetch(fixture, in: folder, mode: .dontModify, savingTo: destination)

        let served = try Data(contentsOf: folder.fileURL(.page(fixture.page)))
        XCTAssertEqual(page.responseData(), served)
        XCTAssertEqual(try Data(contentsOf: destination), served)
        XCTAssertEqual(
            try folder.requestedFiles().sorted(), fixture.expectedRequests, "fetched all the same, each once")
    }

    // MARK: - replaceWithData

    func testThatReplaceWithDataInlinesEachResourceAsItsExactBytesAndServedTypeAndChromiumLoadsThemOffline() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.everyElement(in: folder)
        try folder.write(fixture)
        let destination = try makeTemporaryDirectory().appendingPathComponent("single.html")

        let page = fetch(fixture, in: folder, mode: .replaceWithData, savingTo: destination)

        let saved = try XCTUnwrap(page.responseData())
        XCTAssertEqual(try Data(contentsOf: destination), saved)
        let html = SavedWebPage(saved)
        // Every resource is inlined as it is on the server, but the two documents that name
        // resources of their own, whose images are inlined within them.
        let nested = ["style.css", "style-image.png", "frame.html", "frame-image.png"]
        for file in fixture.resources.sorted() where !nested.contains(file.path) {
            let uri = SavedWebPage.dataURI(try Data(contentsOf: folder.fileURL(file)), type: Self.servedType(file.path))
            XCTAssertTrue(html.text.contains(uri), "\(file) is not inlined as its bytes and type")
        }
        let notInlined = html.resourceReferences.filter { !$0.value.hasPrefix("data:") }
        XCTAssertEqual(notInlined, [], "every resource is a data URI")
        // The stylesheet is its own text with its image inlined in turn.
        let sheets = SavedWebPage.dataURIContents(ofType: "text/css", in: html.text).map {
            String(decoding: $0, as: UTF8.self)
        }
        let styleImage = SavedWebPage.dataURI(try XCTUnwrap(fixture.data("style-image.png")), type: "image/png")
        XCTAssertEqual(
            Set(sheets), ["body { background: url(\(styleImage)); }\n", "p { color: navy; }\n"],
            "style.css, preloaded.css")
        // The frame's page, its image inlined.
        let frames = SavedWebPage.dataURIContents(ofType: "text/html", in: html.text).map { SavedWebPage($0) }
        XCTAssertEqual(frames.count, 1)
        let frameImage = SavedWebPage.dataURI(try XCTUnwrap(fixture.data("frame-image.png")), type: "image/png")
        XCTAssertEqual(frames.first?.resourceReferences.map(\.value), [frameImage])
        XCTAssertEqual(frames.first.map { $0.text.hasPrefix("<!DOCTYPE html>") && !$0.text.contains("<?xml") }, true)
        // The page is written back as it came, not as XML or with a DOCTYPE of libxml2's.
        XCTAssertTrue(
            html.text.hasPrefix("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">"),
            String(html.text.prefix(200)))
        XCTAssertEqual(html.text.components(separatedBy: "<!DOCTYPE").count, 2, "one DOCTYPE")
        XCTAssertFalse(html.text.contains("<?xml"))
        XCTAssertEqual(html.linkHrefs, [folder.url("linked.html").absoluteString], "a href made absolute")
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)

        let report = try HeadlessChromium.loadReport(forPageAt: destination)
        // image.png (its srcset), vector.svg, picture.png, the page's own data: image, duplicate.png
        // three ways, the other origin's image; the backgrounds of style.css, <style>, style=.
        XCTAssertEqual(report.images, Array(repeating: true, count: 8))
        XCTAssertEqual(report.backgroundImages, [true, true, true])
    }

    func testThatReplaceWithDataInlinesImportedStylesheetsWithinTheStylesheetThatImportsThem() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)

        let page = fetch(fixture, in: folder, mode: .replaceWithData, savingTo: nil)

        let html = SavedWebPage(try XCTUnwrap(page.responseData()))
        func png(_ path: String) throws -> String {
            SavedWebPage.dataURI(try Data(contentsOf: folder.fileURL(.page(path))), type: "image/png")
        }
        func css(_ text: String) -> String { SavedWebPage.dataURI(Data(text.utf8), type: "text/css") }
        let byURL = css(".by-url { background-image: url(\"\(try png("by-url.png"))\"); }\n")
        let byString = css(".by-string { background-image: url('\(try png("by-string.png"))'); }\n")
        let main = css(
            "@import url(\(byURL));\n@import \"\(byString)\";\nbody { background: url(\(try png("main.png"))); }\n")
        XCTAssertEqual(html.resourceReferences.map(\.value), [main])
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)
    }

    func testThatADataURIsTypeIsTheServedContentTypeWithoutSpacesOrOctetStreamWhenThereIsNone() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.untypedResource(in: folder)
        try folder.write(fixture)
        // nginx sends a .latin1.css as "text/css; charset=iso-8859-1".
        try folder.write(
            "index.html",
            "<!DOCTYPE html>\n<html><head><link rel=\"stylesheet\" href=\"sheet.latin1.css\"></head><body>"
                + "<img src=\"no-type/untyped.png\" alt=\"\"><img src=\"typed.png\" alt=\"\"></body></html>\n")
        try folder.write("sheet.latin1.css", Data("p::before { content: \"caf\u{E9}\"; }\n".data(using: .isoLatin1)!))

        let page = fetch(fixture, in: folder, mode: .replaceWithData, savingTo: nil)

        let references = SavedWebPage(try XCTUnwrap(page.responseData())).resourceReferences.map(\.value)
        XCTAssertEqual(
            references,
            [
                SavedWebPage.dataURI(
                    try XCTUnwrap(folder.fileContents("sheet.latin1.css")), type: "text/css;charset=iso-8859-1"),
                SavedWebPage.dataURI(
                    try XCTUnwrap(fixture.data("no-type/untyped.png")), type: "application/octet-stream"),
                SavedWebPage.dataURI(try XCTUnwrap(fixture.data("typed.png")), type: "image/png"),
            ])
    }

    // MARK: - replaceWithLocalURLs

    func testThatLocalURLsAreRelativePathsToTheResourcesExactBytesBesideThePageAndChromiumLoadsThemOffline() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.everyElement(in: folder)
        try folder.write(fixture)
        let directory = try makeTemporaryDirectory()
        let destination = directory.appendingPathComponent("index.html")

        let page = fetch(fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: destination)

        let saved = try XCTUnwrap(page.responseData())
        XCTAssertEqual(try Data(contentsOf: destination), saved)
        let html = SavedWebPage(saved)
        let resources = directory.appendingPathComponent("index_files")
        var reached: Set<WebPageFile> = []
        for reference in html.resourceReferences where !reference.value.hasPrefix("data:") {
            let file = try XCTUnwrap(
                localFile(reference, from: destination, in: resources, of: fixture), "\(reference) is no saved resource"
            )
            reached.insert(file.resource)
            switch file.resource.path {
            case "style.css":
                let sheet = try String(contentsOf: file.location, encoding: .utf8)
                for url in SavedWebPage.cssURLs(in: sheet) {
                    let image = try XCTUnwrap(
                        localFile(
                            .init(element: "url()", attribute: "url", value: url), from: file.location, in: resources,
                            of: fixture),
                        "style.css's \(url) is no saved resource beside it")
                    reached.insert(image.resource)
                    try XCTAssertEqual(
                        Data(contentsOf: image.location), Data(contentsOf: folder.fileURL(image.resource)))
                }
            case "frame.html":
                for inner in SavedWebPage(try Data(contentsOf: file.location)).resourceReferences {
                    let image = try XCTUnwrap(
                        localFile(inner, from: file.location, in: resources, of: fixture),
                        "the frame's \(inner) is no saved resource")
                    reached.insert(image.resource)
                    try XCTAssertEqual(
                        Data(contentsOf: image.location), Data(contentsOf: folder.fileURL(image.resource)))
                }
            default:
                try XCTAssertEqual(
                    Data(contentsOf: file.location), Data(contentsOf: folder.fileURL(file.resource)), "\(reference)")
            }
        }
        XCTAssertEqual(reached, fixture.resources, "every resource saved and referred to")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: resources.path).count, fixture.resources.count)
        XCTAssertEqual(html.linkHrefs, [folder.url("linked.html").absoluteString], "a href made absolute")
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)

        let report = try HeadlessChromium.loadReport(forPageAt: destination)
        XCTAssertEqual(report.images, Array(repeating: true, count: 8))
        XCTAssertEqual(report.backgroundImages, [true, true, true])
    }

    func testThatLocalURLsArePercentEncodedWhenThePagesNameHasSpacesAndNonASCIILetters() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.tagSoup(in: folder)
        try folder.write(fixture)
        let directory = try makeTemporaryDirectory().appendingPathComponent("saved pages ü", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let destination = directory.appendingPathComponent("Soup à la page.html")

        let page = fetch(fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: destination)

        let references = SavedWebPage(try XCTUnwrap(page.responseData())).resourceReferences
        XCTAssertEqual(references.count, 6)
        let resources = directory.appendingPathComponent("Soup à la page_files")
        for reference in references {
            XCTAssertTrue(reference.value.hasPrefix("Soup%20%C3%A0%20la%20page_files/"), "\(reference)")
            let file = try XCTUnwrap(localFile(reference, from: destination, in: resources, of: fixture))
            if file.resource.path != "soup.css" {
                try XCTAssertEqual(Data(contentsOf: file.location), Data(contentsOf: folder.fileURL(file.resource)))
            }
        }
    }

    func testThatWithoutADestinationLocalURLsAreFileURLsOfFilesWithTheResourcesBytes() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)

        let page = fetch(fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: nil)

        let references = SavedWebPage(try XCTUnwrap(page.responseData())).resourceReferences.map(\.value)
        XCTAssertEqual(references.count, 1, "\(references)")
        let main = try XCTUnwrap(references.first.flatMap(URL.init(string:)))
        XCTAssertTrue(main.isFileURL, main.absoluteString)
        let resources = main.deletingLastPathComponent()
        addTeardownBlock { try? FileManager.default.removeItem(at: resources) }
        // The sheets refer to each other, and to their images, beside them.
        var pending = [main]
        var reached: [String: Data] = [:]
        while let sheet = pending.popLast() {
            let text = try String(contentsOf: sheet, encoding: .utf8)
            reached[sheet.lastPathComponent] = Data(text.utf8)
            for url in SavedWebPage.cssURLs(in: text) + Self.quotedImports(in: text) {
                let target = try XCTUnwrap(URL(string: url, relativeTo: sheet)?.absoluteURL, url)
                XCTAssertEqual(target.deletingLastPathComponent().path, resources.path, url)
                if target.pathExtension == "css" {
                    pending.append(target)
                } else {
                    reached[target.lastPathComponent] = try Data(contentsOf: target)
                }
            }
        }
        for image in ["main.png", "by-url.png", "by-string.png"] {
            let name = try XCTUnwrap(
                reached.keys.first { Self.originalName(ofSaved: $0) == image }, "\(image) is not reached")
            XCTAssertEqual(reached[name], fixture.data(image), image)
        }
        XCTAssertEqual(Set(reached.keys.compactMap(Self.originalName(ofSaved:))), Set(fixture.resources.map(\.path)))
    }

    func testThatTheSavedPageAppearsOnlyOnceItIsWholeAndNothingHalfWrittenStays() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.everyElement(in: folder)
        try folder.write(fixture)
        let directory = try makeTemporaryDirectory()
        let destination = directory.appendingPathComponent("index.html")
        let watcher = DestinationWatcher(destination)

        let page = fetch(fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: destination) {
            $0.delegate = watcher
        }

        XCTAssertEqual(watcher.seen.count, fixture.resources.count, "the delegate hears each resource")
        XCTAssertEqual(
            watcher.seen.filter { $0 }.count, 0, "the page was at its destination before its resources were in")
        XCTAssertEqual(try Data(contentsOf: destination), page.responseData())
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["index.html", "index_files"])
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: directory.appendingPathComponent("index_files").path
        )
        .filter { Self.originalName(ofSaved: $0) == nil }
        XCTAssertEqual(leftovers, [], "temporary files left among the resources")
    }

    // MARK: - Helpers

    /// Hears each resource finish: whether the page was at `destination` at that moment.
    final class DestinationWatcher: HTTPRequestDelegate, @unchecked Sendable {
        // @unchecked Sendable: `heard` is guarded by `lock`; `destination` is set once.
        private let destination: URL
        private let lock = NSLock()
        private var heard: [Bool] = []

        init(_ destination: URL) { self.destination = destination }

        var seen: [Bool] { lock.withLock { heard } }

        func requestFinished(_ request: HTTPRequest) {
            guard (request as? WebPageRequest)?.parentRequest != nil else { return }
            let exists = FileManager.default.fileExists(atPath: destination.path)
            lock.withLock { heard.append(exists) }
        }
    }

    /// `fixture`'s page fetched synchronously in `mode`, saved to `destination` if given; the
    /// test fails if the page does not succeed.
    func fetch(
        _ fixture: WebPageFixture, in folder: WebPageSiteFolder, mode: WebPageURLReplacementMode,
        savingTo destination: URL?,
        as type: WebPageRequest.Type = WebPageRequest.self, file: StaticString = #filePath, line: UInt = #line,
        configure: (WebPageRequest) -> Void = { _ in }
    ) -> WebPageRequest {
        let page = type.init(url: folder.url(fixture.page))
        page.urlReplacementMode = mode
        page.downloadDestinationPath = destination?.path
        configure(page)
        page.startSynchronous()
        XCTAssertNil(page.error, "\(mode)", file: file, line: line)
        XCTAssertEqual(page.responseStatusCode, 200, "\(mode)", file: file, line: line)
        return page
    }

    /// A reference of a page (or stylesheet) saved at `owner` to a file saved in `resources`:
    /// which of `fixture`'s resources it is and where. Nil (and a failure) when it is not a
    /// relative URL to an existing file there.
    func localFile(
        _ reference: SavedWebPage.Reference, from owner: URL, in resources: URL, of fixture: WebPageFixture,
        file: StaticString = #filePath, line: UInt = #line
    ) -> (resource: WebPageFile, location: URL)? {
        guard let url = URL(string: reference.value), url.scheme == nil, !reference.value.hasPrefix("/") else {
            XCTFail("\(reference) is not a relative URL", file: file, line: line)
            return nil
        }
        guard let location = URL(string: reference.value, relativeTo: owner)?.absoluteURL.standardizedFileURL,
            location.deletingLastPathComponent().path == resources.standardizedFileURL.path,
            FileManager.default.fileExists(atPath: location.path)
        else {
            XCTFail("\(reference) does not resolve to a file in \(resources.path)", file: file, line: line)
            return nil
        }
        let name = Self.originalName(ofSaved: location.lastPathComponent)
        let matches = fixture.resources.filter { ($0.path as NSString).lastPathComponent == name }
        guard matches.count == 1, let resource = matches.first else {
            XCTFail("\(location.lastPathComponent) is named after no single resource", file: file, line: line)
            return nil
        }
        return (resource, location)
    }

    /// The resource name a saved file is named after (`image-2x-0a1b2c3d.png` → `image-2x.png`:
    /// API.md's `<name>-<8 hex digits>.<ext>`), or nil for a name of no such form.
    static func originalName(ofSaved name: String) -> String? {
        guard let match = name.wholeMatch(of: #/(.+)-[0-9a-f]{8}(\.[a-zA-Z0-9]+)?/#) else { return nil }
        return String(match.output.1) + String(match.output.2 ?? "")
    }

    /// `@import "x.css"`'s URLs (the quoted form, which `cssURLs` does not read).
    static func quotedImports(in css: String) -> [String] {
        css.matches(of: #/@import\s+(?:"([^"]*)"|'([^']*)')/#).map { String($0.output.1 ?? $0.output.2 ?? "") }
    }

    /// The Content-Type nginx sends for the fixtures' extensions (WebPageSiteConfiguration).
    static func servedType(_ path: String) -> String {
        let types = [
            "html": "text/html", "css": "text/css", "js": "application/javascript", "png": "image/png",
            "svg": "image/svg+xml", "webm": "video/webm", "ogg": "audio/ogg", "mp4": "video/mp4",
        ]
        return types[(path as NSString).pathExtension] ?? "an extension the fixtures do not use"
    }
}

extension WebPageSiteFolder {
    /// The bytes of `path` as written on the page origin.
    func fileContents(_ path: String) -> Data? {
        FileManager.default.contents(atPath: fileURL(.page(path)).path)
    }
}
