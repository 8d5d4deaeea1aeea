import Foundation

/// Courier's download cache, ASI's ASIDownloadCache: responses stored on disk under
/// `storagePath`, for the session (`<storagePath>/SessionStore`) or until removed
/// (`<storagePath>/PermanentStore`). Set it as `HTTPRequest.defaultCache` or a request's
/// `downloadCache`; requests then read and store it as their `cachePolicy` says.
///
/// Every method may be called from any thread, and several processes may share one folder: an
/// entry is written under temporary names and renamed in (see `CacheStoreFolder`), so a reader
/// sees a whole entry or none. A damaged entry (unreadable metadata, a missing body, a body of
/// another length than the metadata recorded) is a miss, and is removed.
public final class DownloadCache: CacheDelegate {
    private struct Settings {
        var defaultCachePolicy: CachePolicy = .askServerIfModifiedWhenStale
        var shouldRespectCacheControlHeaders = true
    }

    /// The cache under `defaultStoragePath`, made (and its session store cleared) on first use.
    /// Any thread.
    public static let shared = DownloadCache(storagePath: defaultStoragePath)

    /// Where `shared` keeps its files: `$XDG_CACHE_HOME/courier/DownloadCache` (an absolute
    /// XDG_CACHE_HOME only, as the XDG spec says), else `~/.cache/courier/DownloadCache`. Any thread.
    public static var defaultStoragePath: String {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return cache + "/courier/DownloadCache"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/courier/DownloadCache"
    }

    /// The folder holding `SessionStore` and `PermanentStore`: the path given to `init`, made
    /// absolute (a relative one is taken from the current directory then). Any thread.
    public let storagePath: String

    private let settings = Locked(Settings())
    private let sessionStore: CacheStoreFolder
    private let permanentStore: CacheStoreFolder

    /// The storage paths whose session store this process has cleared: only the first cache made
    /// for a path clears it, so a second instance does not wipe what the first stored.
    private static let sessionStoresCleared = Locked<Set<String>>([])

    /// A cache keeping its files under `storagePath`, made with its two stores (0700) when
    /// missing. The first cache this process makes for a path clears its session store: what a
    /// previous process kept for its session is gone (ASI cleared it whenever the path was set).
    /// A folder that cannot be made is logged; the cache then stores nothing. Any thread.
    public init(storagePath: String) {
        // Absolute, so that a later change of the current directory moves nothing.
        let absolute = URL(fileURLWithPath: storagePath).standardizedFileURL.path
        self.storagePath = absolute
        sessionStore = CacheStoreFolder(path: absolute + "/SessionStore")
        permanentStore = CacheStoreFolder(path: absolute + "/PermanentStore")
        for folder in [sessionStore, permanentStore] {
            do {
                try CacheFileIO.makeDirectory(folder.path)
            } catch {
                Log.message("the download cache folder could not be made: \(error)")
            }
        }
        let canonical = URL(fileURLWithPath: absolute).resolvingSymlinksInPath().path
        // Cleared after leaving the registry's lock (clearing may log, and a log handler is user
        // code). A second cache made for the path at the same moment may store before the
        // clearing ends and lose that entry: as if it had stored just before this cache was made.
        if Self.sessionStoresCleared.withLock({ $0.insert(canonical).inserted }) {
            sessionStore.removeAll()
        }
    }

    /// The policy of requests whose `cachePolicy` is `.useDefault`; `.askServerIfModifiedWhenStale`
    /// unless set. Setting `.useDefault` sets `.askServerIfModifiedWhenStale`, as ASI. Any thread.
    public var defaultCachePolicy: CachePolicy {
        get { settings.withLock { $0.defaultCachePolicy } }
        set {
            let policy = newValue == .useDefault ? .askServerIfModifiedWhenStale : newValue
            settings.withLock { $0.defaultCachePolicy = policy }
        }
    }

    /// Whether `Cache-Control: no-store`/`no-cache` and `Pragma: no-cache` keep a response out,
    /// and whether a stored copy is fresh only until its expiry (true). When false, everything
    /// with a storable status is stored and every stored copy counts as fresh. Any thread.
    public var shouldRespectCacheControlHeaders: Bool {
        get { settings.withLock { $0.shouldRespectCacheControlHeaders } }
        set { settings.withLock { $0.shouldRespectCacheControlHeaders = newValue } }
    }

    /// The stored response for `url` (the session store first, then the permanent one), or nil.
    /// Its `isFresh` is judged now. Any thread.
    public func cachedResponse(for url: URL) -> CachedResponse? {
        let key = CacheKey(url)
        guard let hit = lookUp(key, openingBody: false) else { return nil }
        let expires = hit.metadata.expiryDate
        let isFresh = CacheDecision.isFresh(
            expires: expires, respectingHeaders: shouldRespectCacheControlHeaders, now: Date())
        return CachedResponse(
            statusCode: hit.metadata.statusCode, headers: hit.metadata.httpHeaders, bodyPath: hit.bodyPath,
            expires: expires, isFresh: isFresh)
    }

    /// The stored body for `url`, read whole, or nil for a miss. Any thread.
    public func cachedResponseData(for url: URL) -> Data? {
        guard let hit = lookUp(CacheKey(url), openingBody: true), let body = hit.body else { return nil }
        // The body was opened while its entry was whole: a store replacing it meanwhile renames
        // another file over the name and leaves this one as it was.
        return try? body.readToEnd() ?? Data()
    }

    /// Where the stored body for `url` is, or nil for a miss. Read the file; do not change it
    /// (a later store replaces it by renaming a new file over it). As in ASI, its name ends in
    /// the URL's extension, or `.html` when there is none or it is a server script's (asp, aspx,
    /// jsp, php, rb, py, pl, cgi), so a cached page opens as a page. Any thread.
    public func pathToCachedResponseData(for url: URL) -> String? {
        lookUp(CacheKey(url), openingBody: false)?.bodyPath
    }

    /// Removes what is stored for `url`, in both stores. Any thread.
    public func removeCachedResponse(for url: URL) {
        let key = CacheKey(url)
        sessionStore.remove(key)
        permanentStore.remove(key)
    }

    /// Removes every entry of one store; the other is untouched. `HTTPRequest.clearSession()`
    /// clears the default cache's session store. Any thread.
    public func clearCachedResponses(for storagePolicy: CacheStoragePolicy) {
        folder(for: storagePolicy).removeAll()
    }

    func folder(for storagePolicy: CacheStoragePolicy) -> CacheStoreFolder {
        switch storagePolicy {
        case .sessionDuration: sessionStore
        case .permanently: permanentStore
        }
    }

    /// The session store's entry, else the permanent store's.
    func lookUp(_ key: CacheKey, openingBody: Bool) -> CacheStoreFolder.Hit? {
        sessionStore.entry(for: key, openingBody: openingBody)
            ?? permanentStore.entry(for: key, openingBody: openingBody)
    }
}
