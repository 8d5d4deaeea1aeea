import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The download cache against httpbin's caching routes, with Courier's own `DownloadCache` on
/// disk: what a user sees, and what reached the server (httpbin answers 304 only to a
/// conditional request, so a 304 shows one was sent).
final class CacheInteropTests: XCTestCase {
    private var cache: DownloadCache!

    override func setUpWithError() throws {
        try super.setUpWithError()
        cache = DownloadCache(storagePath: try makeTemporaryDirectory().path)
    }

    private func get(
        _ url: URL, policy: CachePolicy = .useDefault, configure: (HTTPRequest) -> Void = { _ in }
    )
        -> HTTPRequest
    {
        let request = HTTPRequest(url: url)
        request.downloadCache = cache
        request.cachePolicy = policy
        request.timeOutSeconds = 10
        configure(request)
        request.startSynchronous()
        return request
    }

    func testThatHTTPBinsCacheRouteIsRevalidatedWithA304() throws {
        let url = try InteropServers.shared.httpbinURL("/cache")
        let first = get(url)
        XCTAssertNil(first.error)
        XCTAssertFalse(first.didUseCachedResponse)
        XCTAssertNotNil(cache.cachedResponse(for: url), "stored")
        let second = get(url)
        XCTAssertNil(second.error)
        XCTAssertTrue(second.didUseCachedResponse, "a 304 served the stored copy")
        XCTAssertEqual(second.responseStatusCode, 200)
        XCTAssertEqual(second.responseData(), first.responseData())
    }

    func testThatAMaxAgeResponseIsServedFreshWithoutAsking() throws {
        let url = try InteropServers.shared.httpbinURL("/cache/60")
        let first = get(url)
        XCTAssertNil(first.error)
        XCTAssertEqual(cache.cachedResponse(for: url)?.isFresh, true)
        let second = get(url)
        XCTAssertTrue(second.didUseCachedResponse)
        XCTAssertEqual(second.responseString(), first.responseString())
    }

    func testThatAnETagIsSentBackAndMatched() throws {
        let url = try InteropServers.shared.httpbinURL("/etag/courier-1")
        XCTAssertNil(get(url).error)
        let second = get(url, policy: .askServerIfModified)
        XCTAssertNil(second.error)
        XCTAssertTrue(second.didUseCachedResponse)
        XCTAssertEqual(second.responseHeaders["ETag"], "courier-1", "the stored headers (httpbin does not quote it)")
    }

    func testThatNoStoreAndShouldRespectCacheControlHeaders() throws {
        let url = try InteropServers.shared.httpbinURL("/response-headers?Cache-Control=no-store")
        XCTAssertNil(get(url).error)
        XCTAssertNil(cache.cachedResponse(for: url), "no-store is honoured")
        cache.shouldRespectCacheControlHeaders = false
        XCTAssertNil(get(url).error)
        XCTAssertNotNil(cache.cachedResponse(for: url), "unless told not to")
        XCTAssertTrue(get(url).didUseCachedResponse, "and then it is always fresh")
    }

    /// ASI named a cached body after the URL's extension, or `html` for none or a script's
    /// (`fileExtensionsToHandleAsHTML`), so that the file opens as what it is.
    func testThatACachedBodyKeepsTheURLsExtensionOrHTMLForAPage() throws {
        let servers = try InteropServers.shared
        let folder = "cache-names/\(UUID().uuidString)"
        let expected = [
            "logo.png": "png", "feed.json": "json", "page": "html", "index.php": "html", "report.ASPX": "html",
            "app.cgi": "html", "run.pl": "html", "view.jsp": "html", "a.rb": "html", "b.py": "html", "c.asp": "html",
        ]
        for (name, fileExtension) in expected {
            try servers.makeFile(named: "\(folder)/\(name)", size: 100)
            let url = servers.nginxURL("/files/\(folder)/\(name)")
            let request = get(url)
            XCTAssertNil(request.error, name)
            let path = try XCTUnwrap(cache.pathToCachedResponseData(for: url), name)
            XCTAssertEqual((path as NSString).pathExtension, fileExtension, "\(name): \(path)")
            XCTAssertEqual(FileManager.default.contents(atPath: path)?.count, 100, name)
            XCTAssertTrue(get(url, policy: .onlyLoadIfNotCached).didUseCachedResponse, "\(name) is found again")
        }
    }
}

/// The download cache's failures: a damaged entry, and the server gone.
final class CacheRecoveryTests: XCTestCase {
    func testThatATruncatedEntryIsAMissAndTheRequestLoadsAgain() throws {
        let server = try TestServer()
        defer { server.stop() }
        let cache = DownloadCache(storagePath: try makeTemporaryDirectory().path)
        let route = Route.cacheable(version: "truncated", maxAge: 60)
        let url = server.url(route)
        func get() -> HTTPRequest {
            let request = HTTPRequest(url: url)
            request.downloadCache = cache
            request.startSynchronous()
            return request
        }
        XCTAssertNil(get().error)
        let body = try XCTUnwrap(cache.pathToCachedResponseData(for: url))
        try Data("vers".utf8).write(to: URL(fileURLWithPath: body))
        let again = get()
        XCTAssertNil(again.error)
        XCTAssertFalse(again.didUseCachedResponse, "the damaged entry was a miss")
        XCTAssertEqual(again.responseString(), "version truncated")
        XCTAssertEqual(server.recordedRequests(for: route).count, 2)
        XCTAssertTrue(get().didUseCachedResponse, "stored whole again")
    }

    func testThatAPermanentEntryServesTheFallbackWithTheServerStopped() throws {
        let server = try TestServer()
        let cache = DownloadCache(storagePath: try makeTemporaryDirectory().path)
        let url = server.url(.cacheable(version: "offline"))
        let first = HTTPRequest(url: url)
        first.downloadCache = cache
        first.cacheStoragePolicy = .permanently
        first.startSynchronous()
        XCTAssertNil(first.error)
        server.stop()
        let offline = HTTPRequest(url: url)
        offline.downloadCache = cache
        offline.cachePolicy = [.askServerIfModifiedWhenStale, .fallbackToCacheIfLoadFails]
        offline.startSynchronous()
        XCTAssertNil(offline.error)
        XCTAssertTrue(offline.didUseCachedResponse)
        XCTAssertEqual(offline.responseString(), "version offline")
    }
}
