import Foundation

/// A download cache, as a request sees it: ASI's ASICacheDelegate. `DownloadCache` is Courier's;
/// bring your own by conforming. Every method may be called from any thread (a request asks it
/// from the thread that sets up an attempt, and stores from the callback side), so a conforming
/// type guards its own state.
public protocol CacheDelegate: AnyObject, Sendable {
    /// The policy a request whose `cachePolicy` is `.useDefault` follows. `.useDefault` itself
    /// here means `.askServerIfModifiedWhenStale`.
    var defaultCachePolicy: CachePolicy { get }

    /// Whether the cache honours `Cache-Control: no-store`/`no-cache`, `Pragma: no-cache` and the
    /// response's freshness (max-age, Expires) when storing and when judging a cached copy.
    var shouldRespectCacheControlHeaders: Bool { get }

    /// The stored response for `url`, if there is a whole one; nil for a miss. A damaged entry
    /// is a miss, and is removed.
    func cachedResponse(for url: URL) -> CachedResponse?

    /// Stores `response` for `url`, in the store `storagePolicy` names, fresh for `maxAge`
    /// seconds when given (else as its headers say). The body is copied from `bodyPath` when
    /// given (a download to a file), else taken from `body`. Replaces what was stored.
    func store(
        _ response: CacheableResponse, for url: URL, storagePolicy: CacheStoragePolicy, maxAge: TimeInterval?)

    /// The server said the stored copy is still good (a 304): it is fresh again, for `maxAge`
    /// seconds when given, else as the 304's headers say.
    func updateExpiry(for url: URL, with headers: HTTPHeaders, maxAge: TimeInterval?)

    /// Removes what is stored for `url`.
    func removeCachedResponse(for url: URL)

    /// Removes every entry of that store.
    func clearCachedResponses(for storagePolicy: CacheStoragePolicy)

    /// The stored body for `url`, read whole; nil for a miss.
    func cachedResponseData(for url: URL) -> Data?

    /// Where the stored body for `url` is on disk; nil for a miss. Read it, do not change it.
    func pathToCachedResponseData(for url: URL) -> String?
}

/// A stored response: what a request served from the cache reports.
public struct CachedResponse: Sendable {
    /// The status stored (a 304 is stored as the 200 it confirmed).
    public var statusCode: Int
    /// The response's header fields, as stored (without Content-Encoding when the body was
    /// stored decoded).
    public var headers: HTTPHeaders
    /// The body's file in the cache.
    public var bodyPath: String
    /// When the stored copy stops being fresh; nil when nothing said (then it is stale, if the
    /// cache respects the headers).
    public var expires: Date?
    /// Whether the copy may be used without asking the server, now.
    public var isFresh: Bool

    /// A stored response with these values, as a cache's `cachedResponse(for:)` returns it.
    public init(statusCode: Int, headers: HTTPHeaders, bodyPath: String, expires: Date?, isFresh: Bool) {
        self.statusCode = statusCode
        self.headers = headers
        self.bodyPath = bodyPath
        self.expires = expires
        self.isFresh = isFresh
    }
}

/// A response a request hands its cache to store.
public struct CacheableResponse: Sendable {
    /// The response's status code, as received.
    public var statusCode: Int
    /// The response's header fields, without Content-Encoding (the body is decoded), with a
    /// Content-Length of the decoded size when the body is in memory.
    public var headers: HTTPHeaders
    /// The body in memory, when the request kept it there.
    public var body: Data?
    /// The body's file, when the request downloaded to one.
    public var bodyPath: String?

    /// A response to store with these values; `body` or `bodyPath` holds its body.
    public init(statusCode: Int, headers: HTTPHeaders, body: Data?, bodyPath: String?) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.bodyPath = bodyPath
    }
}
