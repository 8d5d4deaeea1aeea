import Foundation

/// What a request's download cache decides, as ASI's ASIDownloadCache did (asi-api.md A.11, E): before
/// an attempt, whether to serve a stored copy, ask the server about it or load; after a response,
/// whether to store it, whether a 304 serves the stored copy, whether a failure falls back to it.
/// The request reads the cache and the disk; this value only decides, so each rule has a
/// socket-free test (CacheDecisionTests). What a cache may store and until when is CacheRules'.
struct CacheDecision: Sendable, Equatable {
    /// The policy followed, `.useDefault` already resolved where it matters (see `resolving`).
    var policy: CachePolicy

    /// `policy`, with `.useDefault` taken from the cache, and the cache's own `.useDefault` as
    /// ASI's default: ask the server when the copy is stale.
    static func resolving(_ policy: CachePolicy, cacheDefault: CachePolicy) -> CachePolicy {
        guard policy == .useDefault else { return policy }
        return cacheDefault == .useDefault ? .askServerIfModifiedWhenStale : cacheDefault
    }

    /// Only GETs use a cache (ASI).
    static func usesCache(method: String) -> Bool { method == "GET" }

    /// Whether the cache is looked in at all before an attempt.
    var readsStoredCopy: Bool { !policy.contains(.doNotReadFromCache) }

    /// What the attempt about to begin does.
    enum Start: Equatable {
        /// Go to the network.
        case load
        /// Serve the stored copy; no network.
        case serve
        /// `dontLoad` with nothing stored: finish with no data and no error.
        case finishEmpty
        /// Load with these conditional header lines; a 304 then serves the stored copy.
        case revalidate([String])
    }

    /// Before an attempt, given what the cache holds for the URL (looked up only when
    /// `readsStoredCopy`). Freshness is the stored copy's, judged by its cache at lookup.
    func start(stored: CachedResponse?) -> Start {
        guard readsStoredCopy else { return .load }
        if policy.contains(.dontLoad) { return stored == nil ? .finishEmpty : .serve }
        guard let stored else { return .load }
        if policy.contains(.onlyLoadIfNotCached) { return .serve }
        let asksAlways = policy.contains(.askServerIfModified)
        let asksWhenStale = policy.contains(.askServerIfModifiedWhenStale)
        if asksWhenStale, !asksAlways, stored.isFresh { return .serve }
        guard asksAlways || asksWhenStale else { return .load }
        let lines = Self.conditionalLines(for: stored.headers)
        // Without a validator there is nothing to ask: a plain load replaces the copy.
        return lines.isEmpty ? .load : .revalidate(lines)
    }

    /// If-None-Match and If-Modified-Since, from the stored copy's ETag and Last-Modified.
    static func conditionalLines(for headers: HTTPHeaders) -> [String] {
        var lines: [String] = []
        if let etag = headers["ETag"] { lines.append("If-None-Match: " + etag) }
        if let modified = headers["Last-Modified"] { lines.append("If-Modified-Since: " + modified) }
        return lines
    }

    /// After a load: whether the response goes into the cache. A response that came from the
    /// cache is not stored again.
    func stores(responseCameFromCache: Bool) -> Bool {
        !responseCameFromCache && !policy.contains(.doNotWriteToCache)
    }

    /// A 304 answers only a conditional GET of this request: then the stored copy is the answer.
    /// An unasked-for 304 is the response as it came.
    static func servesStoredCopy(status: Int, isRevalidating: Bool) -> Bool {
        status == 304 && isRevalidating
    }

    /// After a failed load: with `fallbackToCacheIfLoadFails`, a failure to reach the server (not
    /// a refusal, a cancel or a bad answer) serves a stored copy, if there is one.
    func fallsBackToStoredCopy(after failure: NetworkErrorType) -> Bool {
        (failure == .connectionFailure || failure == .requestTimedOut)
            && policy.contains(.fallbackToCacheIfLoadFails)
    }

    /// How long a stored response stays fresh whatever its headers say (`secondsToCache`); nil:
    /// as they say.
    static func maxAge(secondsToCache: TimeInterval) -> TimeInterval? {
        secondsToCache > 0 ? secondsToCache : nil
    }

    /// Whether a copy that expires at `expires` may be served without asking, at `now`. A cache
    /// that ignores the headers serves whatever it holds; one that respects them treats a copy
    /// nothing gave an expiry to as stale.
    static func isFresh(expires: Date?, respectingHeaders: Bool, now: Date) -> Bool {
        !respectingHeaders || (expires.map { $0 > now } ?? false)
    }
}
