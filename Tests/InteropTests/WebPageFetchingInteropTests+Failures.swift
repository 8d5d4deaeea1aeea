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
        let logged = folder.requests(waitingFor: 1, timeout: 5) { $0.uri.hasSuffix("/slow/large.bin") }
        XCTAssertEqual(logged.count, 1, "the slow transfer stopped")
        XCTAssertLessThan(logged.first?.bodyBytesSent ?? .max, 200_000)
    }
}
