import Courier
import CourierTestSupport
import Foundation
import XCTest

/// Tag soup rewritten in both modes, and a subclass's `contentForExternalURL` and
/// `cachePath(for:)` deciding what the saved page refers to.
extension WebPageReplacementInteropTests {
    // MARK: - Tag soup

    func testThatEveryResourceOfTagSoupIsFoundAndInlinedAsData() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.tagSoup(in: folder)
        try folder.write(fixture)

        let page = fetch(fixture, in: folder, mode: .replaceWithData, savingTo: nil)

        let html = SavedWebPage(try XCTUnwrap(page.responseData()))
        func uri(_ path: String) throws -> String {
            SavedWebPage.dataURI(try Data(contentsOf: folder.fileURL(.page(path))), type: Self.servedType(path))
        }
        let sheet = "body { background: url(\(try uri("soup-background.png"))); }\n"
        XCTAssertEqual(
            html.resourceReferences.map(\.value),
            [
                SavedWebPage.dataURI(Data(sheet.utf8), type: "text/css"), try uri("list.png"), try uri("cell.png"),
                try uri("single-quoted.png"), try uri("spaced.png"), try uri("soup.js"),
            ])
        XCTAssertEqual(html.linkHrefs, [folder.url("never.html").absoluteString])
        XCTAssertFalse(html.text.contains("<!DOCTYPE"), "a DOCTYPE the page did not have")
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)
    }

    func testThatEveryResourceOfTagSoupIsFoundAndSavedBesideThePage() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.tagSoup(in: folder)
        try folder.write(fixture)
        let directory = try makeTemporaryDirectory()
        let destination = directory.appendingPathComponent("index.html")
        let resources = directory.appendingPathComponent("index_files")

        let page = fetch(fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: destination)

        let html = SavedWebPage(try XCTUnwrap(page.responseData()))
        var reached: [WebPageFile] = []
        for reference in html.resourceReferences {
            let file = try XCTUnwrap(localFile(reference, from: destination, in: resources, of: fixture))
            reached.append(file.resource)
            guard file.resource.path == "soup.css" else {
                try XCTAssertEqual(Data(contentsOf: file.location), Data(contentsOf: folder.fileURL(file.resource)))
                continue
            }
            for url in SavedWebPage.cssURLs(in: try String(contentsOf: file.location, encoding: .utf8)) {
                let image = try XCTUnwrap(
                    localFile(
                        .init(element: "url()", attribute: "url", value: url), from: file.location, in: resources,
                        of: fixture))
                reached.append(image.resource)
                try XCTAssertEqual(Data(contentsOf: image.location), Data(contentsOf: folder.fileURL(image.resource)))
            }
        }
        XCTAssertEqual(
            reached.map(\.path),
            ["soup.css", "soup-background.png", "list.png", "cell.png", "single-quoted.png", "spaced.png", "soup.js"])
        XCTAssertEqual(html.linkHrefs, [folder.url("never.html").absoluteString])
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)
    }

    // MARK: - Overridden hooks

    /// Refers to images as a mail message's parts would (`cid:NAME`) and leaves the rest.
    final class ContentIDWebPageRequest: WebPageRequest, @unchecked Sendable {
        override func contentForExternalURL(_ url: URL) -> String? {
            url.pathExtension == "png" ? "cid:" + url.lastPathComponent : nil
        }
    }

    func testThatAnOverriddenContentForExternalURLGivesThePageItsStringsAndNilLeavesAnAbsoluteURL() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.everyElement(in: folder)
        try folder.write(fixture)

        let page = fetch(fixture, in: folder, mode: .replaceWithData, savingTo: nil, as: ContentIDWebPageRequest.self)

        let html = SavedWebPage(try XCTUnwrap(page.responseData()))
        func absolute(_ path: String) -> String { folder.url(path).absoluteString }
        XCTAssertEqual(
            html.resourceReferences.map(\.value),
            [
                absolute("style.css"), absolute("preloaded.css"), absolute("script.js"), "cid:image.png",
                "cid:image-2x.png", "cid:image-3x.png", absolute("vector.svg"), absolute("frame.html"),
                absolute("video.webm"), "cid:poster.png", absolute("audio.ogg"), "cid:picture-source.png",
                "cid:picture.png", absolute("source.mp4"), TestPNG.dataURL(TestPNG.distinct(99)), "cid:duplicate.png",
                "cid:duplicate.png#again", "cid:duplicate.png", "cid:cross-origin.png", "cid:inline-style.png",
                "cid:attribute.png",
            ])
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests, "fetched all the same")
    }

    /// Refers to images as `cid:NAME` and to the rest as WebPageRequest would.
    final class ContentIDImagesWebPageRequest: WebPageRequest, @unchecked Sendable {
        override func contentForExternalURL(_ url: URL) -> String? {
            url.pathExtension == "png" ? "cid:" + url.lastPathComponent : super.contentForExternalURL(url)
        }
    }

    func testThatAnOverriddenContentForExternalURLAlsoDecidesWhatTheSavedStylesheetsReferTo() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)
        let directory = try makeTemporaryDirectory()
        let destination = directory.appendingPathComponent("index.html")

        let page = fetch(
            fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: destination,
            as: ContentIDImagesWebPageRequest.self)

        let references = SavedWebPage(try XCTUnwrap(page.responseData())).resourceReferences
        let main = try XCTUnwrap(
            references.first.flatMap {
                localFile($0, from: destination, in: directory.appendingPathComponent("index_files"), of: fixture)
            })
        let sheet = try String(contentsOf: main.location, encoding: .utf8)
        let imports = SavedWebPage.cssURLs(in: sheet).dropLast().map { url in
            URL(string: url, relativeTo: main.location).flatMap { try? String(contentsOf: $0, encoding: .utf8) } ?? url
        }
        XCTAssertTrue(sheet.hasSuffix("body { background: url(cid:main.png); }\n"), sheet)
        XCTAssertEqual(imports, [".by-url { background-image: url(\"cid:by-url.png\"); }\n"], sheet)
        let byString = try XCTUnwrap(Self.quotedImports(in: sheet).first)
        XCTAssertEqual(
            try String(contentsOf: XCTUnwrap(URL(string: byString, relativeTo: main.location)), encoding: .utf8),
            ".by-string { background-image: url('cid:by-string.png'); }\n")
    }

    /// Saves each resource in `assets/` beside the page, under the URL's own name.
    final class AssetsFolderWebPageRequest: WebPageRequest, @unchecked Sendable {
        override func cachePath(for request: WebPageRequest) -> String {
            guard let destination = downloadDestinationPath else { return super.cachePath(for: request) }
            let folder = (destination as NSString).deletingLastPathComponent as NSString
            return folder.appendingPathComponent("assets/" + request.url.lastPathComponent)
        }
    }

    func testThatAnOverriddenCachePathSavesResourcesThereAndThePageRefersToThemRelatively() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)
        let directory = try makeTemporaryDirectory()
        let assets = directory.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)

        let page = fetch(
            fixture, in: folder, mode: .replaceWithLocalURLs, savingTo: directory.appendingPathComponent("index.html"),
            as: AssetsFolderWebPageRequest.self)

        XCTAssertEqual(
            SavedWebPage(try XCTUnwrap(page.responseData())).resourceReferences.map(\.value), ["assets/main.css"])
        // Beside each other under their own names, the sheets' relative URLs are what they were.
        for file in fixture.resources {
            XCTAssertEqual(
                FileManager.default.contents(atPath: assets.appendingPathComponent(file.path).path), fixture.data(file),
                "\(file)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: assets.path).count, fixture.resources.count)
    }
}
