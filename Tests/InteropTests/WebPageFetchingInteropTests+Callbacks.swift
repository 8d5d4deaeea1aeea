import Courier
import CourierTestSupport
import Foundation
import XCTest

/// What a page's delegate and progress delegate hear, a page run the other ways (a user's
/// queue, `await`), and a page read again from the download cache.
extension WebPageFetchingInteropTests {
    func testThatThePagesDelegateHearsEachResourceFinishThenThePageOnTheSynchronousThread() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture, mode: .replaceWithData)
        page.delegate = recorder
        page.downloadProgressDelegate = recorder
        page.startSynchronous()
        XCTAssertNil(page.error)
        XCTAssertTrue(page.isFinished)

        let events = recorder.events
        let thread = pthread_self()
        XCTAssertTrue(
            events.allSatisfy { pthread_equal($0.thread, thread) != 0 }, "every callback on the waiting thread")
        XCTAssertEqual(events.last.map { $0.request === page && $0.name == .finished }, true, "the page's finish last")
        let resourceEnds = events.filter { $0.request !== page && $0.name != .started }
        XCTAssertEqual(resourceEnds.map(\.name), Array(repeating: .finished, count: fixture.resources.count))
        XCTAssertEqual(Set(resourceEnds.map(\.url)), Set(fixture.resources.map { folder.url(of: $0) }))
        XCTAssertTrue(resourceEnds.allSatisfy { ($0.request as? WebPageRequest)?.parentRequest === page })
        XCTAssertNil(page.parentRequest)

        let progress = recorder.progressValues
        XCTAssertEqual(progress.last, 1.0, "\(progress)")
        XCTAssertTrue(progress.allSatisfy { (0...1).contains($0) }, "\(progress)")
    }

    func testThatAnAsynchronousPagesDelegateHearsThePageLastOnItsCallbackQueue() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.frame(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture, mode: .replaceWithData)
        page.delegate = recorder
        page.downloadProgressDelegate = recorder
        let callbacks = DispatchQueue(label: "web-page-delegate-callbacks")
        callbacks.setSpecific(key: WebPageCallbackRecorder.queueKey, value: "page")
        page.callbackQueue = callbacks
        page.startAsynchronous()
        waitUntil(timeout: 10, message: "the page finishes") { page.isFinished }
        XCTAssertNil(page.error)
        XCTAssertTrue(recorder.events.allSatisfy { $0.queue == "page" }, "every callback on the page's callback queue")

        let ended = recorder.ended
        XCTAssertEqual(ended.last.map { $0.request === page && $0.name == .finished }, true, "the page's finish last")
        XCTAssertEqual(ended.filter { $0.request === page }.count, 1)
        XCTAssertEqual(Set(ended.dropLast().map(\.url)), Set(fixture.resources.map { folder.url(of: $0) }))
        XCTAssertTrue(ended.dropLast().allSatisfy { $0.name == .finished })
        XCTAssertEqual(recorder.progressValues.last, 1.0, "\(recorder.progressValues)")
    }

    /// The default callback queue is the main queue: the resources' callbacks come there too,
    /// not on whatever queue the page's resource queue would use.
    func testThatAPageOnTheDefaultCallbackQueueDeliversEveryCallbackOnTheMainThread() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture, mode: .replaceWithData)
        page.delegate = recorder
        page.downloadProgressDelegate = recorder
        page.startAsynchronous()
        waitUntil(timeout: 10, message: "the page finishes") { page.isFinished }
        XCTAssertNil(page.error)
        XCTAssertTrue(Thread.isMainThread)
        let main = pthread_self()
        XCTAssertEqual(recorder.ended.count, fixture.resources.count + 1)
        XCTAssertTrue(
            recorder.events.allSatisfy { pthread_equal($0.thread, main) != 0 }, "every callback on the main thread")
        XCTAssertEqual(recorder.ended.last.map { $0.request === page }, true)
    }

    func testThatAPageInANetworkQueueFetchesItsResourcesBeforeTheQueueFinishes() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)
        let page = makePage(folder, fixture, mode: .replaceWithData)
        let queue = NetworkQueue()
        queue.callbackQueue = DispatchQueue(label: "web-page-network-queue")
        queue.addOperation(page)
        queue.go()
        waitUntil(timeout: 10, message: "the queue empties") { queue.operationCount == 0 }
        XCTAssertTrue(page.isFinished)
        XCTAssertNil(page.error)
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)
        XCTAssertTrue(try XCTUnwrap(page.responseString()).contains("href=\"data:text/css;base64,"))
    }

    func testThatAwaitingAPagesResponseFetchesItsResources() async throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.imports(in: folder)
        try folder.write(fixture)
        let page = makePage(folder, fixture, mode: .replaceWithData)
        page.callbackQueue = DispatchQueue(label: "web-page-await")
        let answered = try await page.response()
        XCTAssertTrue(answered === page)
        XCTAssertNil(page.error)
        XCTAssertEqual(try folder.requestedFiles().sorted(), fixture.expectedRequests)
        XCTAssertTrue(try XCTUnwrap(page.responseString()).contains("href=\"data:text/css;base64,"))
    }

    // MARK: - The download cache

    /// `framed/` has no extension: ASI stored such a body as `.html`, so that it opens as a page.
    func testThatAPageReadAgainFromTheCacheMakesNoRequestAndIsRewrittenTheSame() throws {
        let folder = try WebPageSite.shared.makeFolder()
        try folder.write(
            "index.html",
            """
            <!DOCTYPE html>
            <html><head><link rel="stylesheet" href="main.css"></head>
            <body><img src="photo.png" alt=""><iframe src="framed/"></iframe></body></html>

            """)
        try folder.write("main.css", "body { background: url(back.png); }\n")
        try folder.write(
            "framed/index.html", "<!DOCTYPE html>\n<html><body><img src=\"../framed.png\"></body></html>\n")
        for (number, name) in ["photo.png", "back.png", "framed.png"].enumerated() {
            try folder.write(name, TestPNG.distinct(number + 1))
        }
        let resources = [
            "main.css": "css", "photo.png": "png", "back.png": "png", "framed/": "html", "framed.png": "png",
        ]
        let cache = DownloadCache(storagePath: try makeTemporaryDirectory("web-page-cache").path)
        func load(
            _ policy: CachePolicy, mode: WebPageURLReplacementMode = .replaceWithData, destination: String? = nil
        ) -> WebPageRequest {
            let page = WebPageRequest(url: folder.url("index.html"))
            page.urlReplacementMode = mode
            page.downloadCache = cache
            page.cachePolicy = policy
            page.downloadDestinationPath = destination
            run(page)
            return page
        }

        let first = load(.useDefault)
        XCTAssertNil(first.error)
        let online = try folder.requestedFiles()
        XCTAssertEqual(online.sorted(), (["index.html"] + resources.keys).map(WebPageFile.page).sorted())
        for (path, fileExtension) in resources {
            let stored = try XCTUnwrap(cache.pathToCachedResponseData(for: folder.url(path)), path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: stored), path)
            XCTAssertEqual((stored as NSString).pathExtension, fileExtension, "\(path): \(stored)")
        }

        let again = load(.dontLoad)
        XCTAssertNil(again.error)
        XCTAssertTrue(again.didUseCachedResponse)
        XCTAssertEqual(try folder.requestedFiles(), online, "no request at all")
        XCTAssertEqual(again.responseString(), first.responseString())
        XCTAssertTrue(try XCTUnwrap(again.responseString()).contains("src=\"data:text/html;base64,"))

        // Read again in another mode, still offline: saved beside a page of its own.
        let directory = try makeTemporaryDirectory("web-page-cache-local")
        let local = load(
            .dontLoad, mode: .replaceWithLocalURLs, destination: directory.appendingPathComponent("index.html").path)
        XCTAssertNil(local.error)
        XCTAssertEqual(try folder.requestedFiles(), online, "no request at all")
        let saved = try XCTUnwrap(
            FileManager.default.subpaths(atPath: directory.appendingPathComponent("index_files").path))
        XCTAssertEqual(saved.count, resources.count, "\(saved)")
        XCTAssertTrue(try XCTUnwrap(local.responseString()).contains("src=\"index_files/"))
    }

    /// Read from the cache alone, a resource that is not in it (it failed online) is no resource:
    /// the page keeps its absolute URL, as online, rather than an empty data URI.
    func testThatAResourceMissingFromTheCacheKeepsItsAbsoluteURLWhenReadWithoutLoading() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.failures(in: folder)
        try folder.write(fixture)
        let cache = DownloadCache(storagePath: try makeTemporaryDirectory("web-page-cache-misses").path)
        func load(_ policy: CachePolicy) -> WebPageRequest {
            let page = makePage(folder, fixture, mode: .replaceWithData)
            page.downloadCache = cache
            page.cachePolicy = policy
            run(page)
            return page
        }
        let first = load(.useDefault)
        XCTAssertNil(first.error)
        let online = try folder.requestedFiles()
        let again = load(.dontLoad)
        XCTAssertNil(again.error)
        XCTAssertEqual(try folder.requestedFiles(), online, "no request at all")
        XCTAssertEqual(again.responseString(), first.responseString())
        let html = try XCTUnwrap(again.responseString())
        for failing in fixture.failingResources {
            XCTAssertTrue(html.contains("src=\"\(folder.url(of: failing).absoluteString)\""), "\(failing): \(html)")
        }
    }
}
