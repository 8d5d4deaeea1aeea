import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A followed redirect goes into the download cache under the URL that answered it, and a later
/// request replays it from there with the callbacks the network's would have had (ASI's
/// testRedirect in ASIDownloadCacheTests). Before the fix only the last hop was stored, and a
/// stored redirect was followed without requestRedirected or its headers callback.
final class CacheRedirectTests: CacheTestCase {
    private func get(_ route: Route, delegate: HTTPRequestDelegate? = nil) -> HTTPRequest {
        let request = HTTPRequest(url: server.url(route))
        request.downloadCache = cache
        request.secondsToCache = 60
        request.delegate = delegate
        request.startSynchronous()
        return request
    }

    func testThatACachedRedirectIsReplayedWithTheNetworksCallbacks() {
        let target = Route.cacheable(version: "after-redirect", maxAge: 60)
        let route = Route.redirect(302, to: server.url(target).absoluteString)
        let first = get(route)
        XCTAssertNil(first.error)
        XCTAssertEqual(first.url, server.url(target))
        XCTAssertFalse(first.didUseCachedResponse)
        XCTAssertEqual(cache.cachedResponse(for: server.url(route))?.statusCode, 302, "the hop was stored")
        let recorder = RedirectViewRecorder()
        let second = get(route, delegate: recorder)
        XCTAssertNil(second.error)
        XCTAssertEqual(second.url, server.url(target))
        XCTAssertEqual(second.redirectCount, 1)
        XCTAssertTrue(second.didUseCachedResponse)
        XCTAssertEqual(second.responseStatusCode, 200)
        XCTAssertEqual(second.responseString(), "version after-redirect")
        let old = server.url(route).absoluteString
        let new = server.url(target).absoluteString
        XCTAssertEqual(
            recorder.views.current, ["redirected \(old) #0", "headers 302 \(old) #0", "headers 200 \(new) #1"])
        XCTAssertEqual(server.recordedRequests(for: route).count, 1, "the redirect came from the cache")
        XCTAssertEqual(server.recordedRequests(for: target).count, 1, "so did its target")
    }

    func testThatAReplayedRelativeRedirectLoadsItsTargetAndStoresIt() {
        let target = Route.cacheable(version: "relative-target", maxAge: 60)
        let route = Route.redirect(301, to: target.path)
        XCTAssertNil(get(route).error)
        cache.removeCachedResponse(for: server.url(target))
        let storesBefore = cache.stores
        let second = get(route)
        XCTAssertNil(second.error)
        XCTAssertEqual(second.url, server.url(target), "the stored Location resolved against the hop's URL")
        XCTAssertEqual(second.responseString(), "version relative-target")
        XCTAssertFalse(second.didUseCachedResponse, "the last hop came from the network")
        XCTAssertEqual(cache.stores, storesBefore + 1, "and went into the cache")
        XCTAssertEqual(server.recordedRequests(for: route).count, 1)
        XCTAssertEqual(server.recordedRequests(for: target).count, 2)
    }

    func testThatARedirectIsNotStoredWhenTheRequestDoesNotWriteToTheCache() {
        let target = Route.cacheable(version: "unstored", maxAge: 60)
        let route = Route.redirect(302, to: target.path)
        let request = HTTPRequest(url: server.url(route))
        request.downloadCache = cache
        request.secondsToCache = 60
        request.cachePolicy = [.askServerIfModifiedWhenStale, .doNotWriteToCache]
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertNil(cache.cachedResponse(for: server.url(route)))
        XCTAssertEqual(cache.stores, 0)
    }
}
