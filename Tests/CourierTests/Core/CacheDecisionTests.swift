import XCTest

@testable import Courier

/// The download cache's decisions, without a cache folder or a socket: each policy before an
/// attempt, revalidation headers, what is stored, a 304, the fallback, and freshness by a clock
/// that is passed in.
final class CacheDecisionTests: XCTestCase {
    private func stored(fresh: Bool, etag: String? = "\"v1\"", lastModified: String? = nil) -> CachedResponse {
        var headers = HTTPHeaders()
        if let etag { headers.add(name: "ETag", value: etag) }
        if let lastModified { headers.add(name: "Last-Modified", value: lastModified) }
        return CachedResponse(statusCode: 200, headers: headers, bodyPath: "/nonexistent", expires: nil, isFresh: fresh)
    }

    func testThatUseDefaultTakesTheCachesPolicy() {
        XCTAssertEqual(
            CacheDecision.resolving(.useDefault, cacheDefault: [.onlyLoadIfNotCached]), [.onlyLoadIfNotCached])
    }

    func testThatUseDefaultEverywhereMeansAskTheServerWhenStale() {
        XCTAssertEqual(CacheDecision.resolving(.useDefault, cacheDefault: .useDefault), .askServerIfModifiedWhenStale)
    }

    func testThatARequestsOwnPolicyWinsOverTheCaches() {
        XCTAssertEqual(CacheDecision.resolving(.doNotReadFromCache, cacheDefault: .dontLoad), .doNotReadFromCache)
    }

    func testThatOnlyGETsUseTheCache() {
        XCTAssertTrue(CacheDecision.usesCache(method: "GET"))
        for method in ["POST", "HEAD", "PUT", "DELETE"] { XCTAssertFalse(CacheDecision.usesCache(method: method)) }
    }

    func testThatDoNotReadFromCacheLoadsWithoutLooking() {
        let decision = CacheDecision(policy: .doNotReadFromCache)
        XCTAssertFalse(decision.readsStoredCopy)
        XCTAssertEqual(decision.start(stored: stored(fresh: true)), .load)
    }

    func testThatAFreshCopyIsServedWhenAskingOnlyWhenStale() {
        XCTAssertEqual(CacheDecision(policy: .askServerIfModifiedWhenStale).start(stored: stored(fresh: true)), .serve)
    }

    func testThatAStaleCopyIsRevalidatedWithItsETag() {
        XCTAssertEqual(
            CacheDecision(policy: .askServerIfModifiedWhenStale).start(stored: stored(fresh: false)),
            .revalidate(["If-None-Match: \"v1\""]))
    }

    func testThatAskServerIfModifiedRevalidatesEvenAFreshCopy() {
        XCTAssertEqual(
            CacheDecision(policy: .askServerIfModified).start(stored: stored(fresh: true)),
            .revalidate(["If-None-Match: \"v1\""]))
        XCTAssertEqual(
            CacheDecision(policy: [.askServerIfModified, .askServerIfModifiedWhenStale]).start(
                stored: stored(fresh: true)),
            .revalidate(["If-None-Match: \"v1\""]), "always asking wins over asking when stale")
    }

    func testThatRevalidationSendsBothValidatorsWhenStored() {
        let copy = stored(fresh: false, etag: "W/\"x\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(
            CacheDecision(policy: .askServerIfModified).start(stored: copy),
            .revalidate(["If-None-Match: W/\"x\"", "If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"]))
    }

    func testThatRevalidationWithLastModifiedOnlySendsIfModifiedSince() {
        let copy = stored(fresh: false, etag: nil, lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(
            CacheDecision(policy: .askServerIfModified).start(stored: copy),
            .revalidate(["If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT"]))
    }

    func testThatAStaleCopyWithoutValidatorsIsLoadedAgain() {
        XCTAssertEqual(
            CacheDecision(policy: .askServerIfModifiedWhenStale).start(stored: stored(fresh: false, etag: nil)), .load)
    }

    func testThatNothingStoredLoads() {
        for policy: CachePolicy in [.askServerIfModified, .askServerIfModifiedWhenStale, .onlyLoadIfNotCached] {
            XCTAssertEqual(CacheDecision(policy: policy).start(stored: nil), .load)
        }
    }

    func testThatOnlyLoadIfNotCachedServesAStaleCopy() {
        XCTAssertEqual(CacheDecision(policy: .onlyLoadIfNotCached).start(stored: stored(fresh: false)), .serve)
    }

    func testThatDontLoadServesWhatIsStoredOrFinishesEmpty() {
        let decision = CacheDecision(policy: .dontLoad)
        XCTAssertEqual(decision.start(stored: stored(fresh: false)), .serve)
        XCTAssertEqual(decision.start(stored: nil), .finishEmpty)
    }

    func testThatAPolicyThatNeitherServesNorAsksLoads() {
        // fallbackToCacheIfLoadFails alone says nothing about reading before the load.
        XCTAssertEqual(CacheDecision(policy: .fallbackToCacheIfLoadFails).start(stored: stored(fresh: true)), .load)
    }

    func testThatALoadedResponseIsStoredUnlessThePolicySaysNot() {
        XCTAssertTrue(CacheDecision(policy: .askServerIfModifiedWhenStale).stores(responseCameFromCache: false))
        XCTAssertTrue(CacheDecision(policy: .useDefault).stores(responseCameFromCache: false))
        XCTAssertFalse(
            CacheDecision(policy: [.askServerIfModified, .doNotWriteToCache]).stores(responseCameFromCache: false))
    }

    func testThatAResponseServedFromTheCacheIsNotStoredAgain() {
        XCTAssertFalse(CacheDecision(policy: .askServerIfModified).stores(responseCameFromCache: true))
    }

    func testThatA304ServesTheStoredCopyOnlyWhenItWasAskedFor() {
        XCTAssertTrue(CacheDecision.servesStoredCopy(status: 304, isRevalidating: true))
        XCTAssertFalse(CacheDecision.servesStoredCopy(status: 304, isRevalidating: false))
        XCTAssertFalse(CacheDecision.servesStoredCopy(status: 200, isRevalidating: true))
    }

    func testThatOnlyAFailureToReachTheServerFallsBackToTheCache() {
        let decision = CacheDecision(policy: [.askServerIfModified, .fallbackToCacheIfLoadFails])
        XCTAssertTrue(decision.fallsBackToStoredCopy(after: .connectionFailure))
        XCTAssertTrue(decision.fallsBackToStoredCopy(after: .requestTimedOut))
        for other: NetworkErrorType in [.requestCancelled, .authentication, .unableToCreateRequest] {
            XCTAssertFalse(decision.fallsBackToStoredCopy(after: other), "\(other)")
        }
    }

    func testThatThereIsNoFallbackWithoutThePolicy() {
        XCTAssertFalse(CacheDecision(policy: .askServerIfModified).fallsBackToStoredCopy(after: .connectionFailure))
    }

    func testThatSecondsToCacheZeroLeavesFreshnessToTheHeaders() {
        XCTAssertNil(CacheDecision.maxAge(secondsToCache: 0))
        XCTAssertEqual(CacheDecision.maxAge(secondsToCache: 30), 30)
    }

    func testThatFreshnessIsJudgedByTheClockGiven() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        XCTAssertTrue(CacheDecision.isFresh(expires: now + 1, respectingHeaders: true, now: now))
        XCTAssertFalse(CacheDecision.isFresh(expires: now, respectingHeaders: true, now: now), "expiring now is stale")
        XCTAssertFalse(CacheDecision.isFresh(expires: now - 1, respectingHeaders: true, now: now))
        XCTAssertFalse(CacheDecision.isFresh(expires: now + 1, respectingHeaders: true, now: now + 2))
    }

    func testThatACopyWithoutExpiryIsStaleOnlyWhenHeadersAreRespected() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        XCTAssertFalse(CacheDecision.isFresh(expires: nil, respectingHeaders: true, now: now))
        XCTAssertTrue(CacheDecision.isFresh(expires: nil, respectingHeaders: false, now: now))
        XCTAssertTrue(CacheDecision.isFresh(expires: now - 100, respectingHeaders: false, now: now))
    }
}
