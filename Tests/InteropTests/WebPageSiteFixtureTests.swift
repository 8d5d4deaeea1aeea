import Courier
import CourierTestSupport
import Foundation
import XCTest

/// The web-page tests' fixture works: ``WebPageSite`` serves every builder's files on both
/// origins with the right types and charsets, its special locations answer as documented, its
/// log tells origins and headers apart per folder, and ``HeadlessChromium`` reports what loads
/// offline without letting anything reach the network.
final class WebPageSiteFixtureTests: XCTestCase {
    func testThatEveryBuildersFilesAreServedWithTheirContentTypeOnTheirOrigin() throws {
        let site = try WebPageSite.shared
        // A folder for each builder: their files share names (index.html).
        let builders: [(name: String, build: (WebPageSiteFolder) -> [WebPageFixture])] = [
            ("everyElement", { [.everyElement(in: $0)] }), ("imports", { [.imports(in: $0)] }),
            ("frame", { [.frame(in: $0)] }), ("baseHref", { [.baseHref(in: $0)] }),
            ("redirect", { [.redirect(in: $0)] }), ("cycles", { [.cycles(in: $0)] }),
            ("tagSoup", { [.tagSoup(in: $0)] }), ("mixedResources", { [.mixedResources(in: $0, count: 12)] }),
            ("manyImages", { [.manyImages(in: $0, count: 5)] }), ("failures", { [.failures(in: $0)] }),
            ("slow", { [.slow(in: $0, size: 10)] }), ("untypedResource", { [.untypedResource(in: $0)] }),
            ("crossOrigin", { [.crossOrigin(in: $0)] }),
            // Each encoding's page is in a subfolder of its own.
            ("encodings", { WebPageFixture.encodings(in: $0).map(\.fixture) }),
        ]
        var fixtures: [(name: String, folder: WebPageSiteFolder, fixture: WebPageFixture)] = []
        for (name, build) in builders {
            let folder = try site.makeFolder()
            for fixture in build(folder) {
                try folder.write(fixture)
                fixtures.append((name, folder, fixture))
            }
        }
        var checked = 0
        for (name, folder, fixture) in fixtures {
            for (file, data) in fixture.files.sorted(by: { $0.key < $1.key }) {
                // Files behind not-found/ and reset/ are never served: the location answers first.
                guard !fixture.failingResources.contains(file) else { continue }
                let request = HTTPRequest(url: folder.url(of: file))
                request.useCookiePersistence = false
                request.startSynchronous()
                let context = "\(name): \(file)"
                XCTAssertNil(request.error, context)
                XCTAssertEqual(request.responseStatusCode, 200, context)
                XCTAssertEqual(request.responseData(), data, context)
                XCTAssertEqual(
                    request.responseHeaders["Content-Type"], Self.expectedContentType(file.path), context)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 100)
    }

    func testThatTheTypesTheFixturesNeedAreTheOnesNginxSends() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let expected = [
            "a.html": "text/html", "a.css": "text/css", "a.js": "application/javascript", "a.png": "image/png",
            "a.svg": "image/svg+xml", "a.webp": "image/webp", "a.latin1.css": "text/css; charset=iso-8859-1",
        ]
        for (path, type) in expected {
            try folder.writeOther(path, "x")
            let request = HTTPRequest(url: folder.otherURL(path))
            request.startSynchronous()
            XCTAssertEqual(request.responseStatusCode, 200, path)
            XCTAssertEqual(request.responseHeaders["Content-Type"], type, path)
        }
    }

    func testThatTheLogTellsTheOriginsApartAndShowsCookieAndAuthorization() throws {
        let site = try WebPageSite.shared
        let folder = try site.makeFolder()
        let otherFolder = try site.makeFolder()
        try folder.write("page.html", "<p>page</p>")
        try folder.writeOther("image.png", TestPNG.distinct(1))
        try otherFolder.write("page.html", "<p>another test's page</p>")

        let page = HTTPRequest(url: folder.url("page.html"))
        page.useCookiePersistence = false
        page.addRequestHeader("Cookie", value: "session=page-cookie")
        page.addRequestHeader("Authorization", value: "Bearer page-token")
        page.startSynchronous()
        let other = HTTPRequest(url: folder.otherURL("image.png"))
        other.useCookiePersistence = false
        other.startSynchronous()
        let elsewhere = HTTPRequest(url: otherFolder.url("page.html"))
        elsewhere.startSynchronous()

        XCTAssertEqual(try folder.requestedFiles(), [.page("page.html"), .other("image.png")])
        XCTAssertEqual(try folder.requestedPaths(on: .other), ["image.png"])
        let entries = try folder.requests()
        XCTAssertEqual(entries.map(\.serverPort), [site.pagePort, site.otherPort])
        XCTAssertEqual(entries.first?.cookie, "session=page-cookie")
        XCTAssertEqual(entries.first?.authorization, "Bearer page-token")
        XCTAssertNil(entries.last?.cookie)
        XCTAssertNil(entries.last?.authorization)
        XCTAssertEqual(try otherFolder.requestedFiles(), [.page("page.html")])
    }

    func testThatAnOldLogLineWithoutTheServerPortStillParses() throws {
        let line = """
            {"connection":"7","connectionRequests":"2","scheme":"http","method":"GET","uri":"/files/a","status":"200",\
            "serverProtocol":"HTTP/1.1","authorization":"","cookie":"a=b","requestLength":"80","bodyBytesSent":"5"}
            """
        let entry = try XCTUnwrap(AccessLogEntry(line: line))
        XCTAssertNil(entry.serverPort)
        XCTAssertEqual(entry.connection, 7)
        XCTAssertEqual(entry.cookie, "a=b")
        XCTAssertNil(entry.authorization)
    }

    func testThatRedirectToAnswers302ToTheSamePathOnThePageOrigin() throws {
        let site = try WebPageSite.shared
        let folder = try site.makeFolder()
        let fixture = WebPageFixture.redirect(in: folder)
        try folder.write(fixture)

        // From the other origin too: the target is always on the page origin.
        let unfollowed = HTTPRequest(url: folder.otherURL("redirect-to/moved/index.html?q=1"))
        unfollowed.shouldRedirect = false
        unfollowed.startSynchronous()
        XCTAssertEqual(unfollowed.responseStatusCode, 302)
        XCTAssertEqual(unfollowed.responseHeaders["Location"], folder.url("moved/index.html?q=1").absoluteString)

        let followed = HTTPRequest(url: folder.url(fixture.page))
        followed.startSynchronous()
        XCTAssertEqual(followed.responseStatusCode, 200)
        XCTAssertEqual(followed.url, folder.url("moved/index.html"))
        XCTAssertEqual(followed.responseData(), fixture.data("moved/index.html"))
        XCTAssertEqual(
            try folder.requestedFiles(),
            [.other("redirect-to/moved/index.html?q=1")] + fixture.pageRequests)
    }

    func testThatNotFoundAnswers404AndResetClosesTheConnectionWithNoAnswer() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.failures(in: folder)
        try folder.write(fixture)

        let missing = HTTPRequest(url: folder.url("not-found/missing.png"))
        missing.startSynchronous()
        XCTAssertEqual(missing.responseStatusCode, 404)

        let reset = HTTPRequest(url: folder.url("reset/closed.png"))
        reset.startSynchronous()
        XCTAssertNotNil(reset.error, "a closed connection is a failure")
        XCTAssertEqual(reset.responseStatusCode, 0, "no status line came")
        XCTAssertNil(reset.responseData().flatMap { $0.isEmpty ? nil : $0 })

        // libcurl sends a request again when a reused connection closes with no answer, on the
        // next idle connection to the origin while there is one, at most 5 times
        // (CONN_MAX_RETRIES): after tests that left several idle, 444 is logged up to 6 times.
        let statuses = try folder.requests().map(\.status)
        XCTAssertEqual(statuses.first, 404)
        let resets = Array(statuses.dropFirst())
        XCTAssertTrue((1...6).contains(resets.count) && resets.allSatisfy { $0 == 444 }, "\(statuses)")
    }

    func testThatSetCookieGivesACookieForTheFolderOnly() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let request = HTTPRequest(url: folder.url("set-cookie"))
        request.useCookiePersistence = false
        request.startSynchronous()
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.responseHeaders["Set-Cookie"], "webpage=\(folder.name); Path=/\(folder.name)/")
    }

    func testThatSlowSendsAboutAKilobyteASecond() throws {
        let folder = try WebPageSite.shared.makeFolder()
        try folder.write("slow/large.bin", Data(repeating: 1, count: 100_000))
        let output = try makeTemporaryDirectory().appendingPathComponent("large.bin")
        let curl = try ExternalTool.locate("curl")
        // Cut off after a second and a half: at 1 KB/s about 1.5 KB has come, never the whole file.
        let run = try Tool.run(
            curl, ["-s", "-o", output.path, "--max-time", "1.5", folder.url("slow/large.bin").absoluteString],
            timeout: 30)
        XCTAssertEqual(run.status, 28, "curl's exit status for a transfer cut off by --max-time")
        let received = (try? Data(contentsOf: output))?.count ?? 0
        XCTAssertGreaterThan(received, 0)
        XCTAssertLessThan(received, 8_000)
    }

    func testThatEncodedPagesHoldTheirTextInTheirEncoding() throws {
        let folder = try WebPageSite.shared.makeFolder()
        for encodingCase in WebPageFixture.encodings(in: folder) {
            var bytes = try XCTUnwrap(encodingCase.fixture.data(encodingCase.fixture.page), encodingCase.name)
            if encodingCase.encoding == .utf16LittleEndian {
                XCTAssertEqual(Array(bytes.prefix(2)), [0xFF, 0xFE], encodingCase.name)
                bytes = bytes.dropFirst(2)
            }
            let text = try XCTUnwrap(String(data: bytes, encoding: encodingCase.encoding), encodingCase.name)
            XCTAssertTrue(text.contains("<p id=\"text\">\(encodingCase.text)</p>"), encodingCase.name)
        }
        // The one encoding whose bytes are easiest to get wrong on Linux: 日本語 in Shift_JIS.
        let shiftJIS = try XCTUnwrap(WebPageFixture.encodings(in: folder).first { $0.encoding == .shiftJIS })
        let page = try XCTUnwrap(shiftJIS.fixture.data(shiftJIS.fixture.page))
        XCTAssertNotNil(page.range(of: Data([0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA])))
    }

    func testThatTenThousandImagesAreAllDifferentAndServed() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.manyImages(in: folder)
        XCTAssertEqual(fixture.resources.count, 10_000)
        XCTAssertEqual(Set(fixture.resources.compactMap(fixture.data)).count, 10_000)
        try folder.write(fixture)
        for path in ["images/0.png", "images/9999.png"] {
            let request = HTTPRequest(url: folder.url(path))
            request.startSynchronous()
            XCTAssertEqual(request.responseData(), fixture.data(path), path)
        }
        XCTAssertEqual(WebPageFixture.mixedResources(in: folder).resources.count, 200)
    }

    // MARK: - Headless Chromium

    func testThatChromiumLoadsDataAndLocalImagesAndNothingFromTheNetwork() throws {
        let site = try WebPageSite.shared
        let folder = try site.makeFolder()
        // On the live site, so that only the browser's isolation can keep it from loading.
        try folder.write("reachable.png", TestPNG.distinct(1))
        let closedPort = try LoopbackPort.free()
        let directory = try makeTemporaryDirectory()
        try TestPNG.distinct(2).write(to: directory.appendingPathComponent("local.png"))
        let dataURL = TestPNG.dataURL(TestPNG.distinct(3))
        let page = """
            <!DOCTYPE html>
            <html><head><style>
            .data { background-image: url("\(dataURL)"); }
            .live { background-image: url("\(folder.url("reachable.png"))"); }
            </style></head><body>
            <img src="\(dataURL)"><img src="local.png">
            <img src="http://127.0.0.1:\(closedPort)/x.png"><img src="\(folder.url("reachable.png"))">
            <div class="data">a</div><div class="live">b</div>
            </body></html>
            """
        let file = directory.appendingPathComponent("page.html")
        try Data(page.utf8).write(to: file)

        let report = try HeadlessChromium.loadReport(forPageAt: file)

        XCTAssertEqual(report.images, [true, true, false, false])
        XCTAssertEqual(report.backgroundImages, [true, false])
        XCTAssertEqual(try folder.requests(), [], "Chromium reached the network")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["local.png", "page.html"],
            "the report's copy of the page is left behind")
    }

    func testThatChromiumDecodesEveryImageOfTheEveryElementPageFromDisk() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.everyElement(in: folder)
        try folder.write(fixture)

        let report = try HeadlessChromium.loadReport(forPageAt: folder.fileURL(.page(fixture.page)))

        // image.png (srcset), vector.svg, picture.png (its source), the data: image, duplicate.png
        // three times; the other origin's image is http://, which the isolated browser cannot reach.
        XCTAssertEqual(report.images, [true, true, true, true, true, true, true, false])
        // body (style.css), .inline (the <style> element), the style attribute.
        XCTAssertEqual(report.backgroundImages, [true, true, true])
    }

    // MARK: - Helpers

    /// The Content-Type WebPageSiteConfiguration documents for `path`.
    private static func expectedContentType(_ path: String) -> String? {
        if path.contains("no-type/") { return nil }
        let types = [
            "html": "text/html", "css": "text/css", "js": "application/javascript", "png": "image/png",
            "svg": "image/svg+xml", "webp": "image/webp", "webm": "video/webm", "ogg": "audio/ogg",
            "mp4": "video/mp4", "ico": "image/x-icon", "bin": "application/octet-stream",
        ]
        let name = (path as NSString).lastPathComponent
        guard let type = types[(name as NSString).pathExtension] else { return "unlisted extension" }
        for (marker, charset) in [(".latin1.", "iso-8859-1"), (".utf8.", "utf-8"), (".usascii.", "us-ascii")]
        where name.contains(marker) {
            return "\(type); charset=\(charset)"
        }
        return type
    }
}
