/// How a request uses its download cache (`downloadCache`, `HTTPRequest.defaultCache`): ASI's
/// ASICachePolicy, with its values. Only GETs use a cache. Combine them as ASI allowed:
/// `[.askServerIfModifiedWhenStale, .fallbackToCacheIfLoadFails]`.
public struct CachePolicy: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The cache's own default policy.
    public static let useDefault: CachePolicy = []
    /// Never answer from the cache.
    public static let doNotReadFromCache = CachePolicy(rawValue: 1)
    /// Never store the response.
    public static let doNotWriteToCache = CachePolicy(rawValue: 2)
    /// Ask the server (a conditional GET) when the cached copy has expired.
    public static let askServerIfModifiedWhenStale = CachePolicy(rawValue: 4)
    /// Always ask the server whether the cached copy is still good.
    public static let askServerIfModified = CachePolicy(rawValue: 8)
    /// Use a cached copy whatever its age; load only when there is none.
    public static let onlyLoadIfNotCached = CachePolicy(rawValue: 16)
    /// Use a cached copy, or finish with no data: never load.
    public static let dontLoad = CachePolicy(rawValue: 32)
    /// When loading fails, answer from the cache if it can.
    public static let fallbackToCacheIfLoadFails = CachePolicy(rawValue: 64)
}

/// How long a cached response is kept: for the session, or on disk until removed.
public enum CacheStoragePolicy: Sendable, Hashable {
    /// Kept until the session's store is cleared: by `clearCachedResponses(for:)`,
    /// `HTTPRequest.clearSession()` (the default cache) or the next process that opens the cache's
    /// folder. ASI's ASICacheForSessionDurationCacheStoragePolicy; the default.
    case sessionDuration
    /// Kept on disk until removed (ASI's ASICachePermanentlyCacheStoragePolicy).
    case permanently
}
