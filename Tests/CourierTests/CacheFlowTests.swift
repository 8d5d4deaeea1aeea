import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// The request's side of the download cache, every policy against the fixture server's cacheable
/// route, counting what reaches the server.
final class CacheFlowTests: CacheTestCase {
    private func get(
        _ route: Route, policy: CachePolicy = .useDefault, configure: (HTTPRequest) -> Void = { _ in }
    )
        -> HTTPRequest
    {
        let request = HTTPRequest(url: server.url(route))
        request.downloadCache = cache
        request.cachePolicy = policy
        configure(request)
        request.startSynchronous()
        return request
    }

    private func hits(_ route: Route) -> Int { server.recordedRequests(for: route).count }

    func testThatAFreshCopyIsServedWithoutTheNetwork() {
        let route = Route.cacheable(version: "1", maxAge: 60)
        let first = get(route)
        XCTAssertNil(first.error)
        XCTAssertFalse(first.didUseCachedResponse)
        XCTAssertEqual(first.cachePolicy, .askServerIfModifiedWhenStale, "the default, written back (ASI)")
        let second = get(route)
        XCTAssertNil(second.error)
        XCTAssertTrue(second.didUseCachedResponse)
        XCTAssertEqual(second.responseStatusCode, 200)
        XCTAssertEqual(second.responseString(), "version 1")
        XCTAssertEqual(second.responseHeaders["ETag"], "\"1\"")
        XCTAssertEqual(hits(route), 1, "the second never reached the server")
    }

    func testThatAStaleCopyIsRevalidatedAndA304ServesIt() {
        let route = Route.cacheable(version: "2")  // no max-age: stale at once
        XCTAssertNil(get(route).error)
        let second = get(route)
        XCTAssertNil(second.error)
        XCTAssertTrue(second.didUseCachedResponse)
        XCTAssertEqual(second.responseStatusCode, 200, "the stored 200, not the 304")
        XCTAssertEqual(second.responseString(), "version 2")
        let conditional = server.recordedRequests(for: route).last
        XCTAssertEqual(conditional?.header("If-None-Match"), "\"2\"")
        XCTAssertNotNil(conditional?.header("If-Modified-Since"))
        XCTAssertEqual(hits(route), 2)
    }

    func testThatSecondsToCacheMakesACopyFreshAndA304RefreshesIt() {
        let route = Route.cacheable(version: "3")
        XCTAssertNil(get(route) { $0.secondsToCache = 60 }.error)
        XCTAssertTrue(get(route).didUseCachedResponse)
        XCTAssertEqual(hits(route), 1)
    }

    func testThatAskServerIfModifiedAlwaysAsks() {
        let route = Route.cacheable(version: "4", maxAge: 60)
        _ = get(route)
        let request = get(route, policy: .askServerIfModified)
        XCTAssertTrue(request.didUseCachedResponse, "a 304")
        XCTAssertEqual(hits(route), 2, "asked although fresh")
    }

    func testThatDoNotReadFromCacheLoadsAndDoNotWriteToCacheStoresNothing() {
        let route = Route.cacheable(version: "5", maxAge: 60)
        _ = get(route, policy: [.askServerIfModifiedWhenStale, .doNotWriteToCache])
        XCTAssertEqual(cache.stores, 0)
        _ = get(route)
        let unread = get(route, policy: [.doNotReadFromCache])
        XCTAssertFalse(unread.didUseCachedResponse)
        XCTAssertNil(server.recordedRequests(for: route).last?.header("If-None-Match"), "not even asked")
        XCTAssertEqual(hits(route), 3)
    }

    func testThatOnlyLoadIfNotCachedUsesAStaleCopy() {
        let route = Route.cacheable(version: "6")
        _ = get(route)
        let request = get(route, policy: .onlyLoadIfNotCached)
        XCTAssertTrue(request.didUseCachedResponse)
        XCTAssertEqual(hits(route), 1)
    }

    func testThatDontLoadWithNothingCachedFinishesEmptyWithoutTheNetwork() {
        let route = Route.cacheable(version: "7")
        let request = get(route, policy: .dontLoad)
        XCTAssertNil(request.error)
        XCTAssertTrue(request.complete)
        XCTAssertEqual(request.responseData()?.count ?? 0, 0)
        XCTAssertEqual(hits(route), 0)
        _ = get(route)
        XCTAssertEqual(get(route, policy: .dontLoad).responseString(), "version 7")
        XCTAssertEqual(hits(route), 1)
    }

    func testThatTheCacheIsTheFallbackWhenTheServerIsGone() throws {
        let route = Route.cacheable(version: "8")
        let url = server.url(route)
        _ = get(route)
        server.stop()
        let request = HTTPRequest(url: url)
        request.downloadCache = cache
        request.cachePolicy = [.askServerIfModifiedWhenStale, .fallbackToCacheIfLoadFails]
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertTrue(request.didUseCachedResponse)
        XCTAssertEqual(request.responseString(), "version 8")

        let without = HTTPRequest(url: url)
        without.downloadCache = cache
        without.startSynchronous()
        XCTAssertEqual(without.error?.type, .connectionFailure, "no fallback unless asked")
    }

    func testThatNoStoreIsNotCachedAndPostsNeverUseTheCache() {
        let route = Route.cacheable(version: "9", control: "no-store")
        _ = get(route)
        XCTAssertFalse(get(route).didUseCachedResponse)
        let fresh = Route.cacheable(version: "10", maxAge: 60)
        _ = get(fresh)
        let post = get(fresh) { $0.requestMethod = "POST" }
        XCTAssertFalse(post.didUseCachedResponse)
        XCTAssertEqual(hits(fresh), 2)
    }

    func testThatACachedDownloadIsCopiedToTheDestination() throws {
        let route = Route.cacheable(version: "11", maxAge: 60)
        let folder = try makeTemporaryDirectory()
        let first = folder.appendingPathComponent("first.txt").path
        _ = get(route) { $0.downloadDestinationPath = first }
        XCTAssertEqual(FileManager.default.contents(atPath: first), Data("version 11".utf8))
        let second = folder.appendingPathComponent("second.txt").path
        let request = get(route) { $0.downloadDestinationPath = second }
        XCTAssertTrue(request.didUseCachedResponse)
        XCTAssertEqual(FileManager.default.contents(atPath: second), Data("version 11".utf8))
        try FileManager.default.removeItem(atPath: second)
        XCTAssertEqual(
            cache.cachedResponseData(for: server.url(route)), Data("version 11".utf8), "the cache kept its copy")
    }

    func testThatACachedDownloadReplacesAnOlderFileAtTheDestination() throws {
        let route = Route.cacheable(version: "31", maxAge: 60)
        let folder = try makeTemporaryDirectory()
        _ = get(route)
        let destination = folder.appendingPathComponent("saved.txt").path
        try Data("an older copy".utf8).write(to: URL(fileURLWithPath: destination))
        let request = get(route) { $0.downloadDestinationPath = destination }
        XCTAssertTrue(request.didUseCachedResponse)
        XCTAssertNil(request.error)
        XCTAssertEqual(FileManager.default.contents(atPath: destination), Data("version 31".utf8))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path), ["saved.txt"], "no copy left beside it")
    }

    func testThatACachedResponseCallsFinishedOnce() {
        let route = Route.cacheable(version: "12", maxAge: 60)
        _ = get(route)
        let finished = EventLog()
        let request = HTTPRequest(url: server.url(route))
        request.downloadCache = cache
        request.setCompletionBlock { _ in finished.add("finished") }
        request.setFailedBlock { _ in finished.add("failed") }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        spinMainQueue(for: 0.1)
        XCTAssertEqual(finished.all, ["finished"])
        XCTAssertTrue(request.didUseCachedResponse)
    }

    func testThatACachedResponsesHeadersCookiesAndEncodingAreTheStoredOnes() throws {
        let disk = DownloadCache(storagePath: try makeTemporaryDirectory().path)
        let name = "cached\(UUID().uuidString.prefix(8))"
        let route = Route.headerFields([
            HeaderField(name: "Cache-Control", value: "max-age=60"),
            HeaderField(name: "Set-Cookie", value: "\(name)=oat; Path=/"),
            HeaderField(name: "Content-Type", value: "text/plain; charset=utf-16"),
            HeaderField(name: "X-Served", value: "first"),
        ])
        func get() -> HTTPRequest {
            let request = HTTPRequest(url: server.url(route))
            request.downloadCache = disk
            request.useCookiePersistence = false
            request.startSynchronous()
            return request
        }
        XCTAssertNil(get().error)
        let cached = get()
        XCTAssertTrue(cached.didUseCachedResponse)
        XCTAssertEqual(cached.responseHeaders["X-Served"], "first")
        XCTAssertEqual(cached.responseCookies.map(\.name), [name])
        XCTAssertEqual(cached.responseEncoding, .utf16)
        XCTAssertEqual(server.recordedRequests(for: route).count, 1)
    }

    func testThatProgressReachesTheEndForACachedResponse() {
        let route = Route.cacheable(version: "progress", maxAge: 60)
        _ = get(route)
        let progress = RecordingProgress()
        let request = get(route) { $0.downloadProgressDelegate = progress }
        XCTAssertTrue(request.didUseCachedResponse)
        XCTAssertEqual(progress.current.fractions.last, 1.0)
    }

    func testThatTheDefaultCacheIsUsedByNewRequests() {
        HTTPRequest.defaultCache = cache
        defer { HTTPRequest.defaultCache = nil }
        let route = Route.cacheable(version: "13", maxAge: 60)
        HTTPRequest(url: server.url(route)).startSynchronous()
        let request = HTTPRequest(url: server.url(route))
        XCTAssertTrue(request.downloadCache === cache)
        request.startSynchronous()
        XCTAssertTrue(request.didUseCachedResponse)
    }
}
