import Courier
import CourierTestSupport
import Foundation
import XCTest

/// A page whose resources fail (a 404, a connection closed with no answer), and a page cancelled
/// while a resource is still arriving.
extension WebPageFetchingInteropTests {
    func testThatIgnoredResourceFailuresKeepTheirAbsoluteURLsAndThePageSucceeds() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.failures(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture, mode: .replaceWithData)
        XCTAssertTrue(page.shouldIgnoreExternalResourceErrors, "the default")
        page.delegate = recorder
        run(page)
        XCTAssertTrue(page.isFinished)
        XCTAssertNil(page.error)
        XCTAssertEqual(recorder.ended.last.map { $0.request === page && $0.name == .finished }, true)

        let html = try XCTUnwrap(page.responseString())
        let ok = try XCTUnwrap(fixture.data("ok.png")).base64EncodedString()
        XCTAssertTrue(html.contains("src=\"data:image/png;base64,\(ok)\""), html)
        for failing in fixture.failingResources {
            XCTAssertTrue(html.contains("src=\"\(folder.url(of: failing).absoluteString)\""), "\(failing): \(html)")
        }
        let requested = try folder.requestedFiles()
        XCTAssertEqual(requested.filter { $0 == .page("index.html") }.count, 1)
        XCTAssertEqual(requested.filter { $0 == .page("ok.png") }.count, 1)
        XCTAssertEqual(requested.filter { $0 == .page("not-found/missing.png") }.count, 1)
        // libcurl asks again when a reused connection closes unanswered, and may take another
        // idle one from its pool each time, up to 5 retries (CONN_MAX_RETRIES): one transfer.
        XCTAssertTrue((1...6).contains(requested.filter { $0 == .page("reset/closed.png") }.count), "\(requested)")
        let closed = recorder.ended.filter { $0.url == folder.url("reset/closed.png") }
        XCTAssertEqual(closed.map(\.name), [.failed], "one request, one failure")
    }

    func testThatAFailedResourceFailsThePageNamingItWhenFailuresAreNotIgnored() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.failures(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture, mode: .replaceWithData)
        page.shouldIgnoreExternalResourceErrors = false
        page.delegate = recorder
        run(page)
        XCTAssertTrue(page.isFinished, "ASI 1.8.1 left the page unfinished")
        let error = try XCTUnwrap(page.error)
        let failing = fixture.failingResources.map { folder.url(of: $0).absoluteString }
        XCTAssertTrue(
            failing.contains { error.description.contains($0) } || failing.contains { $0 == error.url?.absoluteString },
            "\(error)")
        let pageEnds = recorder.ended.filter { $0.request === page }
        XCTAssertEqual(pageEnds.map(\.name), [.failed])
    }

    /// A stylesheet's image is the page's resource too: its failure fails the page.
    func testThatAFailureInsideAStylesheetFailsThePageWhenNotIgnored() throws {
        let folder = try WebPageSite.shared.makeFolder()
        try folder.write("index.html", "<html><head><link rel=\"stylesheet\" href=\"style.css\"></head></html>\n")
        try folder.write("style.css", "body { background: url(not-found/back.png); }\n")
        let recorder = WebPageCallbackRecorder()
        let page = WebPageRequest(url: folder.url("index.html"))
        page.shouldIgnoreExternalResourceErrors = false
        page.delegate = recorder
        run(page)
        XCTAssertEqual(page.error?.url, folder.url("not-found/back.png"), "\(String(describing: page.error))")
        XCTAssertEqual(recorder.ended.filter { $0.request === page }.map(\.name), [.failed])
        XCTAssertEqual(try folder.requestedPaths(), ["index.html", "style.css", "not-found/back.png"])
    }

    /// The slow resource arrives at 1 KB/s: the page is cancelled while it is on its way.
    func testThatCancellingAPageMidResourceEndsItAndEveryResourcePromptlyAndSavesNothing() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.slow(in: folder)
        try folder.write(fixture)
        let destination = try makeTemporaryDirectory("web-page-cancel").appendingPathComponent("index.html").path
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture, mode: .replaceWithLocalURLs)
        page.downloadDestinationPath = destination
        page.delegate = recorder
        page.callbackQueue = DispatchQueue(label: "web-page-cancel-callbacks")
        page.startAsynchronous()
        let slow = folder.url("slow/large.bin")
        waitUntil(timeout: 5, message: "the slow resource started") {
            recorder.events.contains { $0.name == .started && $0.url == slow }
        }
        // Let some of it arrive.
        Thread.sleep(forTimeInterval: 0.3)

        let cancelled = Date()
        page.cancel()
        waitUntil(timeout: 2, message: "the page finishes") { page.isFinished }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1)
        XCTAssertEqual(page.error?.type, .requestCancelled)
        XCTAssertEqual(recorder.ended.filter { $0.request === page }.map(\.name), [.failed])

        let resources = Dictionary(
            recorder.events.filter { $0.request !== page }.map { ($0.url, $0.request) }, uniquingKeysWith: { $1 })
        XCTAssertEqual(Set(resources.keys), Set(fixture.resources.map { folder.url(of: $0) }))
        waitUntil(timeout: 2, message: "every resource finishes") { resources.values.allSatisfy(\.isFinished) }
        XCTAssertEqual(resources[slow]?.error?.type, .requestCancelled)
        // nginx logs the slow transfer when its connection ends: short of the whole file.
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertEqual(logged.count, 1, "the slow transfer stopped")
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000)
        Thread.sleep(forTimeInterval: 0.2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "no page saved")
        let folderBeside = (destination as NSString).deletingLastPathComponent
        XCTAssertEqual(FileManager.default.subpaths(atPath: folderBeside), [], "no resource left beside it either")
        XCTAssertTrue(recorder.ended.last?.request === page, "the page's failure last: \(recorder.ended.map(\.url))")
    }

    /// Not ignored, the first failure ends the page: the slow resource is not waited for.
    func testThatAFailureNotIgnoredCancelsTheResourcesStillRunningAndThePageEndsLast() throws {
        let folder = try WebPageSite.shared.makeFolder()
        try folder.write(
            "index.html",
            "<!DOCTYPE html>\n<html><body><img src=\"slow/large.bin\"><img src=\"not-found/missing.png\"></body></html>\n"
        )
        try folder.write("slow/large.bin", Data(repeating: 0x5A, count: 200_000))
        let recorder = WebPageCallbackRecorder()
        let page = WebPageRequest(url: folder.url("index.html"))
        page.shouldIgnoreExternalResourceErrors = false
        page.delegate = recorder
        let started = Date()
        run(page, timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
        XCTAssertTrue(
            page.error?.description.contains("not-found/missing.png") == true, "\(String(describing: page.error))")
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertEqual(logged.count, 1, "the slow transfer stopped")
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000)
        let slow = try XCTUnwrap(recorder.events.first { $0.url == folder.url("slow/large.bin") }?.request)
        waitUntil(timeout: 2, message: "the slow resource finishes") { slow.isFinished }
        XCTAssertEqual(slow.error?.type, .requestCancelled)
        XCTAssertTrue(recorder.ended.last?.request === page, "the page's failure last: \(recorder.ended.map(\.url))")
    }

    func testThatNoMoreResourcesRunAtOnceThanMaxConcurrentResourceRequests() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let names = (0..<6).map { "slow/\($0).bin" }
        try folder.write(
            "index.html", "<html><body>" + names.map { "<img src=\"\($0)\">" }.joined() + "</body></html>\n")
        for name in names { try folder.write(name, Data(repeating: 0x5A, count: 200_000)) }
        let recorder = WebPageCallbackRecorder()
        let page = WebPageRequest(url: folder.url("index.html"))
        page.maxConcurrentResourceRequests = 2
        page.delegate = recorder
        page.callbackQueue = DispatchQueue(label: "web-page-concurrency-callbacks")
        page.startAsynchronous()
        defer {
            page.cancel()
            waitUntil(timeout: 2, message: "the page finishes") { page.isFinished }
        }
        waitUntil(timeout: 5, message: "two resources started") {
            recorder.events.filter { $0.name == .started && $0.request !== page }.count >= 2
        }
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(recorder.events.filter { $0.name == .started && $0.request !== page }.count, 2)
    }

    /// Run synchronously, the page's callbacks (its resources' too) run on the waiting thread:
    /// cancelled from another thread, the wait still ends promptly, with every resource ended.
    func testThatASynchronousPageCancelledFromAnotherThreadReturnsPromptly() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.slow(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture)
        page.delegate = recorder
        let slow = folder.url("slow/large.bin")
        let cancelledAt = WebPageCallbackRecorder.Flags()
        let cancelling = Thread {
            let deadline = Date(timeIntervalSinceNow: 5)
            while !recorder.events.contains(where: { $0.name == .started && $0.url == slow }), Date() < deadline {
                usleep(10_000)
            }
            cancelledAt.note(true)
            page.cancel()
        }
        cancelling.start()
        page.startSynchronous()
        XCTAssertEqual(cancelledAt.values, [true], "the slow resource started before the cancel")
        XCTAssertTrue(page.isFinished)
        XCTAssertEqual(page.error?.type, .requestCancelled)
        let thread = pthread_self()
        XCTAssertTrue(
            recorder.events.allSatisfy { pthread_equal($0.thread, thread) != 0 }, "every callback on the waiting thread"
        )
        XCTAssertTrue(recorder.ended.last?.request === page, "the page's failure last")
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertEqual(logged.count, 1, "the slow transfer stopped")
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000)
    }

    /// clearDelegatesAndCancel is what a delegate about to go away calls: the resources, which
    /// were given the page's delegate, must not call it either.
    func testThatClearDelegatesAndCancelSilencesThePagesResourcesToo() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.slow(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture)
        page.delegate = recorder
        page.callbackQueue = DispatchQueue(label: "web-page-cleared-callbacks")
        page.startAsynchronous()
        let slow = folder.url("slow/large.bin")
        waitUntil(timeout: 5, message: "the slow resource started") {
            recorder.events.contains { $0.name == .started && $0.url == slow }
        }
        let heard = recorder.events.count
        let resources = recorder.events.map(\.request).filter { $0 !== page }
        page.clearDelegatesAndCancel()
        waitUntil(timeout: 2, message: "the page and its resources finish") {
            page.isFinished && resources.allSatisfy(\.isFinished)
        }
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000, "the slow transfer stopped")
        XCTAssertEqual(recorder.events.count, heard, "\(recorder.events.dropFirst(heard).map(\.url))")
    }

    func testThatCancellingAQueueWithAPageInItStopsThePagesResources() throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.slow(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture)
        page.delegate = recorder
        let queue = NetworkQueue()
        queue.callbackQueue = DispatchQueue(label: "web-page-cancelled-queue")
        queue.addOperation(page)
        queue.go()
        let slow = folder.url("slow/large.bin")
        waitUntil(timeout: 5, message: "the slow resource started") {
            recorder.events.contains { $0.name == .started && $0.url == slow }
        }
        let cancelled = Date()
        queue.cancelAllOperations()
        waitUntil(timeout: 2, message: "the queue empties") { queue.operationCount == 0 }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1)
        XCTAssertEqual(page.error?.type, .requestCancelled)
        XCTAssertTrue(recorder.ended.last?.request === page, "the page's failure last")
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertEqual(logged.count, 1, "the slow transfer stopped")
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000)
    }

    func testThatCancellingTheTaskAwaitingAPageCancelsItsResources() async throws {
        let folder = try WebPageSite.shared.makeFolder()
        let fixture = WebPageFixture.slow(in: folder)
        try folder.write(fixture)
        let recorder = WebPageCallbackRecorder()
        let page = makePage(folder, fixture)
        page.delegate = recorder
        page.callbackQueue = DispatchQueue(label: "web-page-task-callbacks")
        let slow = folder.url("slow/large.bin")
        let task = Task { try await page.response() }
        let deadline = Date(timeIntervalSinceNow: 5)
        while !recorder.events.contains(where: { $0.name == .started && $0.url == slow }), Date() < deadline {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let cancelled = Date()
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("the page finished")
        } catch {
            XCTAssertEqual((error as? HTTPRequestError)?.type, .requestCancelled, "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 1)
        XCTAssertTrue(recorder.ended.last?.request === page, "the page's failure last")
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertEqual(logged.count, 1, "the slow transfer stopped")
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000)
    }
}
