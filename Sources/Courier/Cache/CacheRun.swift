/// How a request's download cache took part in its run.
struct CacheRun: Sendable {
    /// The response came from the cache (ASI's didUseCachedResponse).
    var didUseCachedResponse = false
    /// The cached copy this attempt asks the server about (a conditional GET): a 304 serves it.
    var revalidating: CachedResponse?
    /// If-None-Match and If-Modified-Since lines for this attempt, from `revalidating`.
    var conditionalLines: [String] = []
    /// The attempt the cache was last asked about: each attempt (each redirect hop) asks once.
    var askedForAttempt = 0
}
