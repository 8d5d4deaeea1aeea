import Courier
import CourierTestSupport
import Foundation
import XCTest

/// What a WebPageRequest fetches, read from the web-page site's access log: every element once
/// and nothing else, what each origin is sent, how URLs resolve (imports, frames, `<base>`, a
/// redirect), cycles, and the bounds. Failures, cancelling, callbacks and the cache are in the
/// `+Failures` and `+Callbacks` files.
final class WebPageFetchingInteropTests: FreshSessionTestCase {
    // MARK: - Helpers

    /// A request for `fixture`'s page, with a timeout short enough that a stuck resource shows.
    func makePage(
        _ folder: WebPageSiteFolder, _ fixture: WebPageFixture, mode: WebPageURLReplacementMode = .dontModify
    ) -> WebPageRequest {
        let page = WebPageRequest(url: folder.url(fixture.page))
        page.urlReplacementMode = mode
        page.timeOutSeconds = 10
        return page
    }

    /// Starts `page` on a callback queue of its own and waits until it is finished (`isFinished`:
    /// its last callback ran); a page still running after `timeout` fails the test and is
    /// cancelled, so one stuck page does not hang the suite.
    func run(_ page: WebPageRequest, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line) {
        page.callbackQueue = DispatchQueue(label: "web-page-fetching-callbacks")
        page.startAsynchronous()
        waitUntil(timeout: timeout, message: "\(page.url) finishes", file: file, line: line) { page.isFinished }
        if !page.isFinished { page.cancel() }
    }

    /// Fetches `fixture` in a new folder by `mode` and checks the log: each of the fixture's
    /// requests exactly once, none of its never-requested files.
    @discardableResult
    func assertFetchesExactly(
        _ build: (WebPageSiteFolder) -> WebPageFixture, mode: WebPageURLReplacementMode = .replaceWithData,
        _ context: String, file: StaticString = #filePath, line: UInt = #line,
        configure: (WebPageRequest) -> Void = { _ in }
    ) throws -> (WebPageSiteFolder, WebPageFixture, WebPageRequest) {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = build(folder)
        try folder.write(fixture)
        let page = makePage(folder, fixture, mode: mode)
        configure(page)
        run(page, file: file, line: line)
        XCTAssertNil(page.error, context, file: file, line: line)
        let requested = try folder.requestedFiles()
        XCTAssertEqual(requested.sorted(), fixture.expectedRequests, context, file: file, line: line)
        XCTAssertEqual(
            fixture.neverRequested.intersection(requested), [], "\(context): never requested", file: file, line: line)
        return (folder, fixture, page)
    }

    // MARK: - What is fetched

    func testThatEveryElementIsFetchedOnceAndLinksIconsAndDataURIsNeverInEveryMode() throws {
        for mode in [WebPageURLReplacementMode.dontModify, .replaceWithData, .replaceWithLocalURLs] {
            let recorder = WebPageCallbackRecorder()
            let destination = try makeTemporaryDirectory("web-page-every-element").appendingPathComponent("index.html")
            let (folder, fixture, page) = try assertFetchesExactly(
                WebPageFixture.everyElement(in:), mode: mode, "\(mode)"
            ) {
                $0.delegate = recorder
                $0.downloadDestinationPath = destination.path
            }
            XCTAssertEqual(
                try folder.requestedFiles().filter { $0.path.contains("duplicate") }, [.page("duplicate.png")],
                "\(mode): three spellings, one request")
            // A data: URI would fail inside libcurl before any log line: the delegate sees every start.
            let started = Set(recorder.events.filter { $0.name == .started && $0.request !== page }.map(\.url))
            XCTAssertEqual(started, Set(fixture.resources.map { folder.url(of: $0) }), "\(mode): the resources started")
            XCTAssertTrue(started.allSatisfy { $0.scheme == "http" }, "\(mode)")
        }
    }

    // MARK: - Origins

    func testThatOnlySameOriginResourcesGetThePagesCookiesCredentialsAndHeaders() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.crossOrigin(in: folder)
        try folder.write(fixture)
        let page = makePage(folder, fixture)
        page.useCookiePersistence = false
        page.requestCookies = [
            try XCTUnwrap(
                HTTPCookie(properties: [.name: "session", .value: "page-cookie", .domain: "127.0.0.1", .path: "/"]))
        ]
        page.username = "reader"
        page.password = "secret"
        page.authenticationScheme = "Basic"
        page.addRequestHeader("X-Courier-Test", value: "page-header")
        run(page)
        XCTAssertNil(page.error)

        let entries = try folder.requests()
        XCTAssertEqual(entries.compactMap(folder.file(for:)).sorted(), fixture.expectedRequests)
        let basic = "Basic " + Data("reader:secret".utf8).base64EncodedString()
        for entry in entries {
            let file = try XCTUnwrap(folder.file(for: entry))
            if file.origin == .page {
                XCTAssertEqual(entry.cookie, "session=page-cookie", "\(file)")
                XCTAssertEqual(entry.authorization, basic, "\(file)")
                XCTAssertEqual(entry.testHeader, "page-header", "\(file)")
            } else {
                // other.png by another host, same-host.png by the page's host on another port.
                XCTAssertNil(entry.cookie, "\(file)")
                XCTAssertNil(entry.authorization, "\(file)")
                XCTAssertNil(entry.testHeader, "\(file)")
            }
        }
    }

    /// The user's credentials and headers were for the origin they asked; a redirect to another
    /// origin strips them from the page's own request there, and so from the resources beside it.
    func testThatAfterARedirectToAnotherOriginItsResourcesGetNoneOfThePagesCredentialsOrHeaders() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.redirect(in: folder)
        try folder.write(fixture)
        // redirect-to/ on the other origin answers 302 to the page origin.
        let page = WebPageRequest(url: folder.otherURL("redirect-to/moved/index.html"))
        page.timeOutSeconds = 10
        page.useCookiePersistence = false
        page.username = "reader"
        page.password = "secret"
        page.authenticationScheme = "Basic"
        page.addRequestHeader("X-Courier-Test", value: "page-header")
        run(page)
        XCTAssertNil(page.error)
        XCTAssertEqual(page.url, folder.url("moved/index.html"))

        let entries = try folder.requests()
        XCTAssertEqual(
            entries.compactMap(folder.file(for:)).sorted(),
            ([.other("redirect-to/moved/index.html"), .page("moved/index.html")] + fixture.resources).sorted())
        for entry in entries {
            let file = try XCTUnwrap(folder.file(for: entry))
            if file.origin == .other {
                XCTAssertNotNil(entry.authorization, "\(file): the origin the user asked")
                XCTAssertEqual(entry.testHeader, "page-header", "\(file)")
            } else {
                XCTAssertNil(entry.authorization, "\(file)")
                XCTAssertNil(entry.testHeader, "\(file)")
            }
        }
    }

    /// The cookie jar's cookies are not bound to a port: a cookie of the page's host would reach
    /// the other origin on that host unless the resource is kept from the jar there.
    func testThatAJarCookieOfThePagesHostStaysOffTheOtherPortOnThatHost() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.crossOrigin(in: folder)
        try folder.write(fixture)
        let setter = HTTPRequest(url: folder.url("set-cookie"))
        setter.startSynchronous()
        XCTAssertEqual(setter.responseStatusCode, 200)

        let page = makePage(folder, fixture)
        run(page)
        XCTAssertNil(page.error)
        var checked = 0
        for entry in try folder.requests() {
            let file = try XCTUnwrap(folder.file(for: entry))
            switch file {
            case .page("index.html"), .page("own.png"):
                XCTAssertEqual(entry.cookie, "webpage=\(folder.name)", "\(file)")
            case .other("other.png"), .other("same-host.png"):
                XCTAssertNil(entry.cookie, "\(file)")
            default:
                continue
            }
            checked += 1
        }
        XCTAssertEqual(checked, 4)
    }

    /// A page's validators and range say nothing of its resources: sent on, they would make a
    /// resource whose ETag or date happens to match come back 304, with no body to save, or a
    /// part of it come back 206.
    func testThatThePagesConditionalHeadersNeverReachItsResources() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.crossOrigin(in: folder)
        try folder.write(fixture)
        // The page older than own.png: own.png's validators never match the page itself.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)],
            ofItemAtPath: folder.fileURL(.page("index.html")).path)
        let probe = HTTPRequest(url: folder.url("own.png"))
        probe.requestMethod = "HEAD"
        probe.startSynchronous()
        let validators = [
            ("If-None-Match", try XCTUnwrap(probe.responseHeaders["ETag"])),
            ("If-Modified-Since", try XCTUnwrap(probe.responseHeaders["Last-Modified"])),
            // From the first byte: the page still comes whole (206), own.png would come as 206.
            ("Range", "bytes=0-"),
        ]
        let ownSize = try XCTUnwrap(fixture.data("own.png")).count

        for (name, value) in validators {
            let before = try folder.requests().count
            let page = makePage(folder, fixture)
            page.addRequestHeader(name, value: value)
            run(page)
            XCTAssertNil(page.error, name)
            XCTAssertEqual(page.responseStatusCode, name == "Range" ? 206 : 200, name)
            let entries = try folder.requests().dropFirst(before)
            let pageEntry = try XCTUnwrap(entries.first { folder.file(for: $0) == .page("index.html") }, name)
            let sent = [
                "If-None-Match": pageEntry.ifNoneMatch, "If-Modified-Since": pageEntry.ifModifiedSince,
                "Range": pageEntry.range,
            ]
            XCTAssertEqual(sent[name], value, name)
            let own = entries.filter { folder.file(for: $0) == .page("own.png") }
            XCTAssertEqual(own.count, 1, name)
            XCTAssertEqual(own.first?.status, 200, "\(name): a whole answer, not 304 or 206")
            XCTAssertEqual(own.first?.bodyBytesSent, ownSize, name)
            XCTAssertNil(own.first?.ifNoneMatch, name)
            XCTAssertNil(own.first?.ifModifiedSince, name)
            XCTAssertNil(own.first?.range, name)

            // The header does apply to own.png: sent, it would have made a 304 (or 206).
            let control = HTTPRequest(url: folder.url("own.png"))
            control.addRequestHeader(name, value: value)
            control.startSynchronous()
            XCTAssertEqual(control.responseStatusCode, name == "Range" ? 206 : 304, name)
        }
    }

    // MARK: - Resolution

    func testThatBothImportFormsAndEachSheetsImagesAreFetched() throws {
        try assertFetchesExactly(WebPageFixture.imports(in:), "imports")
    }

    func testThatAFramesResourcesResolveAgainstTheFrameAndNotThePage() throws {
        try assertFetchesExactly(WebPageFixture.frame(in:), "frame")
    }

    func testThatBaseHrefDecidesWhereThePagesResourcesAre() throws {
        try assertFetchesExactly(WebPageFixture.baseHref(in:), "baseHref")
    }

    func testThatResourcesResolveAgainstTheURLARedirectEndedAt() throws {
        let (folder, _, page) = try assertFetchesExactly(WebPageFixture.redirect(in:), "redirect")
        XCTAssertEqual(page.url, folder.url("moved/index.html"))
    }

    func testThatSelfMutualImportsAndAPageFramingItselfEndWithEachFileFetchedOnce() throws {
        try assertFetchesExactly(WebPageFixture.cycles(in:), "cycles")
    }

    /// A stylesheet that was redirected names its images relative to where it ended.
    func testThatARedirectedStylesheetsImagesResolveAgainstItsFinalURL() throws {
        let (folder, _, page) = try assertFetchesExactly(
            { _ in
                var fixture = WebPageFixture(
                    page: "index.html",
                    files: [
                        .page("index.html"): WebPageFixture.utf8(
                            "<html><head><link rel=\"stylesheet\" href=\"redirect-to/css/sheet.css\"></head></html>\n"),
                        .page("css/sheet.css"): WebPageFixture.utf8("body { background: url(back.png); }\n"),
                        .page("css/back.png"): TestPNG.distinct(1),
                        .page("redirect-to/css/back.png"): TestPNG.distinct(2),
                    ],
                    resources: [.page("css/sheet.css"), .page("css/back.png")],
                    neverRequested: [.page("redirect-to/css/back.png")])
                // The stylesheet's first hop, the 302, is in the log too.
                fixture.pageRequests.append(.page("redirect-to/css/sheet.css"))
                return fixture
            }, "redirected stylesheet")
        let html = try XCTUnwrap(page.responseString())
        let sheet = try XCTUnwrap(
            Self.attributeValues("href", in: html).first { $0.hasPrefix("data:text/css;base64,") })
        let css = String(decoding: try XCTUnwrap(Data(base64Encoded: String(sheet.dropFirst(21)))), as: UTF8.self)
        XCTAssertTrue(css.contains("data:image/png;base64,\(TestPNG.distinct(1).base64EncodedString())"), css)
        XCTAssertEqual(page.url, folder.url("index.html"))
    }

    /// A stylesheet asked for as the page is read as one: its imports and images are fetched.
    func testThatAStylesheetRequestedAsThePageFetchesItsImportsAndImages() throws {
        try assertFetchesExactly(
            {
                var fixture = WebPageFixture.imports(in: $0)
                fixture.page = "main.css"
                fixture.pageRequests = [.page("main.css")]
                fixture.resources.remove(.page("main.css"))
                return fixture
            }, "a stylesheet as the page")
    }

    func testThatMaxResourcesZeroFetchesOnlyThePage() throws {
        try assertFetchesExactly(
            {
                var fixture = WebPageFixture.everyElement(in: $0)
                fixture.resources = []
                return fixture
            }, "maxResources 0"
        ) { $0.maxResources = 0 }
    }

    /// A copy is a fresh request with the page's settings: run, it fetches the same tree again,
    /// within the same bounds.
    func testThatACopyOfAPageFetchesTheSameResourcesWithTheSameBounds() throws {
        let (folder, fixture, page) = try assertFetchesExactly(
            {
                var fixture = WebPageFixture.imports(in: $0)
                fixture.resources = [.page("main.css")]
                return fixture
            }, "maxDepth 1"
        ) { $0.maxDepth = 1 }
        let copy = page.copy()
        XCTAssertEqual(copy.maxDepth, 1)
        XCTAssertEqual(copy.urlReplacementMode, .replaceWithData)
        run(copy)
        XCTAssertNil(copy.error)
        XCTAssertEqual(
            try folder.requestedFiles().sorted(), (fixture.expectedRequests + fixture.expectedRequests).sorted())
        XCTAssertEqual(copy.responseString(), page.responseString())
    }

    // MARK: - Bounds

    func testThatTenThousandImagesFetchFiveHundredAndLeaveTheRestAsAbsoluteURLs() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.manyImages(in: folder, count: 10_000)
        try folder.write(fixture)
        let page = makePage(folder, fixture, mode: .replaceWithData)
        let started = Date()
        run(page, timeout: 30)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertNil(page.error)
        XCTAssertLessThan(elapsed, 15)

        let requested = try folder.requestedFiles()
        XCTAssertEqual(requested.count, 501, "the page and 500 images")
        let fetched = Set(requested).subtracting([.page("index.html")])
        XCTAssertEqual(fetched.count, 500, "each once")
        XCTAssertTrue(fetched.isSubset(of: fixture.resources))

        let sources = Self.attributeValues("src", in: try XCTUnwrap(page.responseString()))
        XCTAssertEqual(sources.count, 10_000)
        XCTAssertEqual(sources.filter { $0.hasPrefix("data:image/png;base64,") }.count, 500)
        let absolute = Set(sources.filter { !$0.hasPrefix("data:") })
        let unfetched = fixture.resources.subtracting(fetched)
        XCTAssertEqual(absolute, Set(unfetched.map { folder.url(of: $0).absoluteString }))
    }

    func testThatMaxDepthOneFetchesOnlyWhatThePageItselfNames() throws {
        let (folder, _, _) = try assertFetchesExactly(
            {
                var fixture = WebPageFixture.everyElement(in: $0)
                // The stylesheet's image and the frame's are at depth 2.
                let deeper: Set<WebPageFile> = [.page("style-image.png"), .page("frame-image.png")]
                fixture.resources.subtract(deeper)
                fixture.neverRequested.formUnion(deeper)
                return fixture
            }, "everyElement, maxDepth 1"
        ) { $0.maxDepth = 1 }
        XCTAssertTrue(try folder.requestedFiles().contains(.page("style.css")))
        try assertFetchesExactly(
            {
                var fixture = WebPageFixture.imports(in: $0)
                fixture.resources = [.page("main.css")]
                return fixture
            }, "imports, maxDepth 1"
        ) { $0.maxDepth = 1 }
    }

    func testThatTwoHundredMixedResourcesAreEachFetchedOnce() throws {
        let started = Date()
        try assertFetchesExactly({ WebPageFixture.mixedResources(in: $0, count: 200) }, "mixed")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    }

    /// Every `NAME="…"` value in `html`, in order.
    static func attributeValues(_ name: String, in html: String) -> [String] {
        html.components(separatedBy: " \(name)=\"").dropFirst().compactMap {
            $0.split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
    }
}
