import CourierTestServer
import CourierTestSupport
import XCTest

/// `courier page` against a `TestServer` in this process: a page with a stylesheet (with an
/// image of its own) and an image, saved beside its resources or as one file, and the failures.
final class PageCommandTests: ServerTestCase {
    /// The image the page shows, and the one its stylesheet shows: distinct bytes and types.
    private let pageImage = "PAGE-IMAGE-BYTES"
    private let cssImage = "CSS-IMAGE-BYTES"

    /// A page whose stylesheet has a background image, with an image and a link of its own;
    /// `imageRoute` replaces the page's image (a route that fails or stalls).
    private func pageURL(imageRoute: Route? = nil) -> (page: URL, css: URL, image: URL, cssImage: URL) {
        let cssImageURL = server.url(.text(cssImage, contentType: "image/gif"))
        let cssURL = server.url(
            .text("body { background: url(\"\(cssImageURL.absoluteString)\") }", contentType: "text/css"))
        let imageURL = server.url(imageRoute ?? .text(pageImage, contentType: "image/png"))
        let html = """
            <!DOCTYPE html>
            <html><head><title>Saved</title>
            <link rel="stylesheet" href="\(Self.attribute(cssURL))"></head>
            <body><p>Hello offline</p><img src="\(Self.attribute(imageURL))">
            <a href="/status/200">more</a></body></html>
            """
        let page = server.url(.text(html, contentType: "text/html; charset=utf-8"))
        return (page, cssURL, imageURL, cssImageURL)
    }

    /// "127.0.0.1:PORT": how every resource's web URL starts after its scheme.
    private static func origin(of url: URL) -> String {
        "\(url.host ?? ""):\(url.port ?? 0)"
    }

    /// A URL as an HTML attribute value: its "&" escaped.
    private static func attribute(_ url: URL) -> String {
        url.absoluteString.replacingOccurrences(of: "&", with: "&amp;")
    }

    func testThatAPageIsSavedBesideItsResourcesAndRefersToThemRelatively() throws {
        let directory = try makeTemporaryDirectory()
        let urls = pageURL()
        let run = try CourierBinary.run(["page", "-o", directory.path, urls.page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["index.html", "index_files"], "no staging folder is left")
        let resources = directory.appendingPathComponent("index_files")
        let saved = try fileNames(in: resources)
        XCTAssertEqual(saved.count, 3, "the stylesheet and both images: \(saved)")
        let contents = try Dictionary(
            uniqueKeysWithValues: saved.map {
                ($0, try String(contentsOf: resources.appendingPathComponent($0), encoding: .utf8))
            })
        XCTAssertTrue(contents.values.contains(pageImage), "\(contents)")
        XCTAssertTrue(contents.values.contains(cssImage), "\(contents)")
        let (cssName, css) = try XCTUnwrap(contents.first { $0.value.contains("background") })
        let cssImageName = try XCTUnwrap(contents.first { $0.value == cssImage }?.key)
        // The stylesheet sits beside its image: it names it without a folder or host.
        XCTAssertTrue(css.contains(cssImageName), css)
        XCTAssertFalse(css.contains("127.0.0.1"), css)

        let page = try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8)
        let imageName = try XCTUnwrap(contents.first { $0.value == pageImage }?.key)
        XCTAssertTrue(page.contains("index_files/\(cssName)"), page)
        XCTAssertTrue(page.contains("index_files/\(imageName)"), page)
        XCTAssertTrue(page.contains("Hello offline"), page)
        XCTAssertFalse(page.contains(Self.origin(of: urls.css) + "/text"), "no resource is left on the web: \(page)")
        // A link is not fetched; it becomes absolute, so the saved copy still links to the web.
        XCTAssertTrue(page.contains(server.url(path: "/status/200").absoluteString), page)

        XCTAssertEqual(run.outputLines.count, 1, run.transcript)
        let line = run.outputLines.first ?? ""
        XCTAssertTrue(
            line.hasPrefix(
                "ok   200 \(urls.page.absoluteString) -> \(directory.path)/index.html, 3 resources in "
                    + "\(directory.path)/index_files/, "), run.transcript)
        XCTAssertFalse(run.standardError.contains("resource"), run.transcript)
    }

    func testThatSingleFileInlinesEveryResourceAsDataURIsIntoOneFile() throws {
        let directory = try makeTemporaryDirectory()
        let urls = pageURL()
        let file = directory.appendingPathComponent("saved.html")
        let run = try CourierBinary.run(["page", "--single-file", "-o", file.path, urls.page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["saved.html"], "one file, nothing beside it")
        let page = try String(contentsOf: file, encoding: .utf8)
        XCTAssertTrue(page.contains("Hello offline"), page)
        XCTAssertTrue(page.contains("data:image/png;base64,\(Data(pageImage.utf8).base64EncodedString())"), page)
        // The stylesheet is inlined with its own image inlined in it.
        let cssData = try XCTUnwrap(
            page.firstMatch(of: /data:text\/css;base64,([A-Za-z0-9+\/=]+)/).map { String($0.1) }, page)
        let css = String(decoding: try XCTUnwrap(Data(base64Encoded: cssData)), as: UTF8.self)
        XCTAssertTrue(css.contains("data:image/gif;base64,\(Data(cssImage.utf8).base64EncodedString())"), css)
        XCTAssertFalse(page.contains(Self.origin(of: urls.css) + "/text"), "no resource is left on the web: \(page)")
        XCTAssertTrue(
            run.standardOutput.hasPrefix("ok   200 \(urls.page.absoluteString) -> \(file.path), 3 resources inlined, "),
            run.transcript)
    }

    func testThatSingleFileIntoAFolderIsNamedAfterThePage() throws {
        let directory = try makeTemporaryDirectory()
        let run = try CourierBinary.run(["page", "--single-file", "-o", directory.path, pageURL().page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        // The route's path, "/text", does not end in .html: the page is index.html.
        XCTAssertEqual(try fileNames(in: directory), ["index.html"], run.transcript)
    }

    func testThatSingleFileNamedWithoutAFolderIsShownAsTyped() throws {
        let directory = try makeTemporaryDirectory()
        let url = pageURL().page.absoluteString
        let run = try CourierBinary.run(["page", "--single-file", "-o", "saved.html", url], in: directory)
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["saved.html"], run.transcript)
        XCTAssertTrue(
            run.standardOutput.hasPrefix("ok   200 \(url) -> saved.html, 3 resources inlined, "), run.transcript)
    }

    func testThatAnUnreachablePageExitsOneAndSavesNothing() throws {
        let directory = try makeTemporaryDirectory()
        let closed = try TestServer()
        let url = closed.url(.text("<p>gone</p>", contentType: "text/html")).absoluteString
        closed.stop()
        let run = try CourierBinary.run(["page", "--no-progress", "-o", directory.path, url])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(run.standardError.hasPrefix("FAIL \(url): A connection failure occurred"), run.transcript)
        XCTAssertEqual(run.standardOutput, "", run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "nothing saved, no staging folder left")
    }

    func testThatAPageAnswering404IsReportedAndNotSaved() throws {
        let directory = try makeTemporaryDirectory()
        let url = server.url(.status(404)).absoluteString
        let run = try CourierBinary.run(["page", "--no-progress", "-o", directory.path, url])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(run.standardError.contains("err  \(url): 404 Not Found (not saved)"), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [])
    }

    func testThatAFailedResourceKeepsItsWebURLAndIsListedButThePageIsSaved() throws {
        let directory = try makeTemporaryDirectory()
        let urls = pageURL(imageRoute: .status(404))
        let run = try CourierBinary.run(["page", "--no-progress", "-o", directory.path, urls.page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertTrue(
            run.standardError.contains("resource not saved, its web URL kept: \(urls.image.absoluteString): 404"),
            run.transcript)
        XCTAssertTrue(run.standardOutput.contains(", 2 resources in "), run.transcript)
        XCTAssertTrue(run.standardOutput.contains(" (1 failed), "), run.transcript)
        let page = try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(page.contains(Self.attribute(urls.image)), "the image's absolute URL stays: \(page)")
    }

    func testThatFailOnResourceErrorsFailsThePageAndSavesNothing() throws {
        let directory = try makeTemporaryDirectory()
        let closed = try TestServer()
        let unreachable = closed.url(.bytes(10))
        closed.stop()
        let urls = pageURL()
        // The page's image on a port nobody listens on.
        let html = """
            <html><head><link rel="stylesheet" href="\(Self.attribute(urls.css))"></head>
            <body><img src="\(unreachable.absoluteString)"></body></html>
            """
        let page = server.url(.text(html, contentType: "text/html")).absoluteString
        let run = try CourierBinary.run(
            ["page", "--no-progress", "--fail-on-resource-errors", "-o", directory.path, page])
        XCTAssertEqual(run.status, 1, run.transcript)
        XCTAssertTrue(run.standardError.hasPrefix("FAIL \(page): "), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "nothing saved, no staging folder left")

        let lenient = try CourierBinary.run(["page", "--no-progress", "-o", directory.path, page])
        XCTAssertEqual(lenient.status, 0, "without the flag the page is saved: \(lenient.transcript)")
    }

    func testThatMaxDepthOneLeavesTheStylesheetsImagesOnTheWeb() throws {
        let directory = try makeTemporaryDirectory()
        let urls = pageURL()
        let run = try CourierBinary.run(
            ["page", "--no-progress", "--max-depth", "1", "-o", directory.path, urls.page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        let resources = directory.appendingPathComponent("index_files")
        let saved = try fileNames(in: resources).map {
            try String(contentsOf: resources.appendingPathComponent($0), encoding: .utf8)
        }
        XCTAssertEqual(saved.count, 2, "the stylesheet and the page's image: \(saved)")
        let css = try XCTUnwrap(saved.first { $0.contains("background") })
        XCTAssertTrue(css.contains(urls.cssImage.absoluteString), "its image stays a web URL: \(css)")
    }

    func testThatMaxResourcesBoundsWhatIsFetched() throws {
        let directory = try makeTemporaryDirectory()
        let urls = pageURL()
        let run = try CourierBinary.run(
            ["page", "--no-progress", "--max-resources", "1", "-o", directory.path, urls.page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory.appendingPathComponent("index_files")).count, 1, run.transcript)
        XCTAssertTrue(run.standardOutput.contains(", 1 resource in "), run.transcript)
    }

    func testThatCtrlCExits130AndLeavesNothingHalfWritten() throws {
        let directory = try makeTemporaryDirectory()
        // The stylesheet and its image arrive; the page's image never does.
        let urls = pageURL(imageRoute: .stall)
        var launch = CourierBinary.Launch(timeout: 20)
        launch.whileRunning = { pid in
            usleep(1_500_000)
            kill(pid, SIGINT)
        }
        let run = try CourierBinary.run(
            ["page", "--no-progress", "-o", directory.path, urls.page.absoluteString], launch)
        XCTAssertEqual(run.status, 130, run.transcript)
        XCTAssertTrue(
            run.standardError.contains("interrupted: \(urls.page.absoluteString) (nothing saved)"), run.transcript)
        XCTAssertEqual(try fileNames(in: directory), [], "no page, no resources, no staging folder")
    }

    func testThatAnEarlierCopyIsReplaced() throws {
        let directory = try makeTemporaryDirectory()
        let resources = directory.appendingPathComponent("index_files")
        try FileManager.default.createDirectory(at: resources, withIntermediateDirectories: true)
        try Data("stale".utf8).write(to: resources.appendingPathComponent("old.css"))
        try Data("stale page".utf8).write(to: directory.appendingPathComponent("index.html"))
        let run = try CourierBinary.run(["page", "--no-progress", "-o", directory.path, pageURL().page.absoluteString])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), ["index.html", "index_files"], run.transcript)
        XCTAssertFalse(try fileNames(in: resources).contains("old.css"), "the earlier copy's resources are gone")
        let page = try String(contentsOf: directory.appendingPathComponent("index.html"), encoding: .utf8)
        XCTAssertTrue(page.contains("Hello offline"), page)
    }
}
