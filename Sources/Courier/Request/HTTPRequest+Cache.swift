import Foundation

/// The download cache's settings on a request (ASI's ASIDownloadCache; asi-api.md E). Any thread;
/// set them before the request starts.
extension HTTPRequest {
    /// The cache new requests start with; nil (the default) until set.
    public class var defaultCache: (any CacheDelegate)? {
        get { classSettings.withLock { $0.downloadCache } }
        set { classSettings.withLock { $0.downloadCache = newValue } }
    }

    /// This request's cache: `HTTPRequest.defaultCache` when it was made, unless set.
    public var downloadCache: (any CacheDelegate)? {
        get { read(\.config.downloadCache) }
        set { write(\.config.downloadCache, newValue) }
    }

    /// How long a response this request stores is kept (`.sessionDuration`).
    public var cacheStoragePolicy: CacheStoragePolicy {
        get { read(\.config.cacheStoragePolicy) }
        set { write(\.config.cacheStoragePolicy, newValue) }
    }

    /// Seconds a response this request stores stays fresh, whatever its headers say (0: as they
    /// say).
    public var secondsToCache: TimeInterval {
        get { read(\.config.secondsToCache) }
        set { write(\.config.secondsToCache, newValue) }
    }

    /// True when the response came from the cache: fresh, confirmed by the server (a 304, reported
    /// as the stored 200), or the fallback after a failed load.
    public var didUseCachedResponse: Bool { read(\.cacheRun.didUseCachedResponse) }
}

/// The request's side of the cache: what an attempt may take from it, ask about, or store.
extension HTTPRequest {
    /// What the cache means for the attempt about to begin.
    enum CacheStart {
        /// Go to the network (the cache has nothing to say, or the policy says so).
        case load
        /// Serve this stored copy; no network.
        case serve(CachedResponse)
        /// `dontLoad` with nothing stored: finish with no data and no error.
        case finishEmpty
    }

    /// The policy the request follows, with `.useDefault` resolved to its cache's (ASI writes
    /// it back, so `cachePolicy` reads what was followed).
    static func effectivePolicy(_ config: inout RequestConfiguration, cache: any CacheDelegate) -> CachePolicy {
        guard config.cachePolicy == .useDefault else { return config.cachePolicy }
        config.cachePolicy = CacheDecision.resolving(config.cachePolicy, cacheDefault: cache.defaultCachePolicy)
        return config.cachePolicy
    }

    /// The request's cache, if it uses one: only GETs do.
    static func cache(of config: RequestConfiguration) -> (any CacheDelegate)? {
        guard let cache = config.downloadCache, CacheDecision.usesCache(method: effectiveMethod(of: config)) else {
            return nil
        }
        return cache
    }

    /// Asks the cache before an attempt. Only GETs use it. Outside the lock: the cache reads disk.
    func cacheDecisionBeforeAttempt() -> CacheStart {
        let decided = state.withLock { state -> (cache: any CacheDelegate, policy: CachePolicy, url: URL)? in
            // Says where this hop's response comes from: a redirect replayed from the cache may
            // lead to one that loads.
            state.cacheRun.didUseCachedResponse = false
            state.cacheRun.revalidating = nil
            state.cacheRun.conditionalLines = []
            guard let cache = Self.cache(of: state.config) else { return nil }
            return (cache, Self.effectivePolicy(&state.config, cache: cache), state.config.url)
        }
        guard let (cache, policy, url) = decided else { return .load }
        let decision = CacheDecision(policy: policy)
        guard decision.readsStoredCopy else { return .load }
        let cached = cache.cachedResponse(for: url)
        switch decision.start(stored: cached) {
        case .load: return .load
        case .finishEmpty: return .finishEmpty
        case .serve: return cached.map(CacheStart.serve) ?? .load
        case .revalidate(let lines):
            state.withLock { state in
                state.cacheRun.revalidating = cached
                state.cacheRun.conditionalLines = lines
            }
            return .load
        }
    }

    /// Serves `cached` as this request's response: its status, headers and body, a body copied
    /// to `downloadDestinationPath` when there is one (fix: ASI pointed the destination at the
    /// cache's own file). A stored redirect is followed. Off the engine thread.
    func serve(_ cached: CachedResponse) {
        let (destination, redirects) = state.withLock { state in
            (
                state.config.downloadDestinationPath,
                RedirectPolicy(state.config).follows(
                    status: cached.statusCode, hasLocation: cached.headers["Location"] != nil)
            )
        }
        if redirects { return replayRedirect(cached) }
        guard send(.servingFromCache) else { return }
        let body: Data
        do {
            if let destination {
                try Self.copyIntoPlace(cached.bodyPath, to: destination)
                body = Data()
            } else {
                body = try Data(contentsOf: URL(fileURLWithPath: cached.bodyPath))
            }
        } catch {
            // The entry went between the lookup and now: load it instead.
            read(\.config.downloadCache)?.removeCachedResponse(for: url)
            return complete(
                .failed(
                    HTTPRequestError(
                        type: .internalErrorWhileBuildingRequest,
                        message: "The cached response could not be read: \(error.localizedDescription)", url: url)))
        }
        let headers = state.withLock { state -> HTTPHeaders in
            Self.record(cached, body: body, into: &state)
            if destination != nil { state.response.totalBytesRead = Self.fileSize(destination) }
            return cached.headers
        }
        Log.message("served \(Log.masked(url)) from the download cache")
        postEvent {
            self.announce(.started)
            self.announce(.headersReceived(headers))
        }
        // A class that reads its successful responses reads a stored one too: a WebPageRequest's
        // page from the cache is its page again, rewritten from its resources (themselves from the
        // cache) in this request's mode.
        guard read(\.config.reviewsSuccessfulResponses) else { return complete(.finished) }
        reviewResponse { verdict in
            if case .fail(let error) = verdict { return self.complete(.failed(error)) }
            self.complete(.finished)
        }
    }

    /// A stored redirect, followed as if the server had just sent it: the hop's callbacks in the
    /// network's order (started, requestRedirected, then the hop's headers; ASI), then the
    /// redirect decision. The Location is resolved against the URL that answered it.
    private func replayRedirect(_ cached: CachedResponse) {
        let hop = url
        let headers = state.withLock { state -> HTTPHeaders in
            Self.record(cached, body: Data(), into: &state)
            return cached.headers
        }
        Log.message("replaying the cached \(cached.statusCode) redirect of \(Log.masked(hop))")
        postEvent {
            self.announce(.started)
            self.announce(.redirected)
            self.announce(.headersReceived(headers))
        }
        let location = RedirectPolicy.target(of: cached.headers["Location"], from: hop)?.absoluteString
        followRedirect(to: location, status: cached.statusCode)
    }

    /// `dontLoad` with nothing stored: the request finishes with no data and no error (ASI).
    func finishWithoutLoading() {
        guard send(.servingFromCache) else { return }
        complete(.finished)
    }

    private static func record(_ cached: CachedResponse, body: Data, into state: inout RequestState) {
        state.cacheRun.didUseCachedResponse = true
        state.response.statusCode = cached.statusCode
        state.response.statusLine = "HTTP/1.1 \(cached.statusCode) " + HTTPStatusText.reason(for: cached.statusCode)
        state.response.headerBlock = RawHeaderBlock(cached.headers)
        state.response.body = body
        state.response.totalBytesRead = Int64(body.count)
        state.response.isCompressed = false
    }

    private static func copyIntoPlace(_ source: String, to destination: String) throws {
        let manager = FileManager.default
        let temporary = destination + ".courier-cache-\(UUID().uuidString)"
        try CacheFileIO.copy(source, toNewFile: temporary)
        do {
            _ = try manager.replaceItemAt(
                URL(fileURLWithPath: destination), withItemAt: URL(fileURLWithPath: temporary))
        } catch {
            // No file at the destination yet: replaceItemAt wants one.
            if manager.fileExists(atPath: temporary) {
                do {
                    try manager.moveItem(atPath: temporary, toPath: destination)
                } catch {
                    try? manager.removeItem(atPath: temporary)
                    throw error
                }
            }
        }
    }

    private static func fileSize(_ path: String?) -> Int64 {
        guard let path, let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber else {
            return 0
        }
        return size.int64Value
    }

    // MARK: - After the attempt

    /// Whether a finished load goes into the cache; taken under the lock.
    static func wantsStoring(_ state: RequestState) -> Bool {
        cache(of: state.config) != nil
            && CacheDecision(policy: state.config.cachePolicy).stores(
                responseCameFromCache: state.cacheRun.didUseCachedResponse)
    }

    /// Stores the response that just finished loading, its body decoded (without its
    /// Content-Encoding), from memory or from its file in place. Off the engine thread.
    func storeInCache() {
        guard let (cache, stored, storage, maxAge) = state.withLock(Self.storing) else { return }
        var response = stored
        if let original = read(\.response.cacheBody) {
            response.bodyPath = nil
            response.body = original
            response.headers["Content-Length"] = String(original.count)
        } else if response.bodyPath == nil {
            response.body = responseData() ?? Data()
            response.headers["Content-Length"] = String(response.body?.count ?? 0)
        }
        cache.store(response, for: url, storagePolicy: storage, maxAge: maxAge)
    }

    /// What storing the response received takes, read under the lock (inout: the headers are
    /// parsed on first read): the cache, the response (decoded: without Content-Encoding; its
    /// body is in the download's file, if there is one), how long it is kept and how long it
    /// stays fresh. Nil when the request stores nothing.
    private static func storing(
        _ state: inout RequestState
    ) -> (any CacheDelegate, CacheableResponse, CacheStoragePolicy, TimeInterval?)? {
        guard wantsStoring(state), let cache = state.config.downloadCache else { return nil }
        var headers = state.response.headers
        headers.remove(name: "Content-Encoding")
        let response = CacheableResponse(
            statusCode: state.response.statusCode, headers: headers, body: nil,
            bodyPath: state.config.downloadDestinationPath)
        return (cache, response, state.config.cacheStoragePolicy, maxAge(state.config))
    }

    /// How long a stored response stays fresh whatever its headers say; nil: as they say.
    private static func maxAge(_ config: RequestConfiguration) -> TimeInterval? {
        CacheDecision.maxAge(secondsToCache: config.secondsToCache)
    }

    /// A redirect about to be followed is stored under the URL that answered it, with no body,
    /// so a later request for that URL replays it without the network (ASI stored each hop).
    /// Then `follow` runs. The disk is written off the engine thread, before the next hop
    /// begins.
    func storeRedirectHopThenFollow(_ follow: @escaping @Sendable () -> Void) {
        let (taken, hop) = state.withLock { state in (Self.storing(&state), state.config.url) }
        guard let (cache, stored, storage, maxAge) = taken else { return follow() }
        var response = stored
        response.body = Data()
        response.bodyPath = nil
        response.headers["Content-Length"] = "0"
        DispatchQueue.global().async { [response] in
            cache.store(response, for: hop, storagePolicy: storage, maxAge: maxAge)
            follow()
        }
    }

    /// A 304 answered this attempt's conditional GET: the stored copy is good again. Serves it.
    func serveNotModified() {
        let (cached, headers, maxAge, cache) = state.withLock { state in
            (
                state.cacheRun.revalidating, state.response.headers,
                Self.maxAge(state.config), state.config.downloadCache
            )
        }
        guard let cached, let cache else { return finishAttempt(.finished) }
        DispatchQueue.global().async {
            cache.updateExpiry(for: self.url, with: headers, maxAge: maxAge)
            // Looked up again: the 304's validators and expiry were merged into the stored headers.
            self.serve(cache.cachedResponse(for: self.url) ?? cached)
        }
    }

    /// The load failed: with `fallbackToCacheIfLoadFails`, a stored copy is served instead of the
    /// failure. True when it will be (asynchronously).
    func fallBackToCache(after error: HTTPRequestError) -> Bool {
        let candidate = state.withLock { state -> (any CacheDelegate)? in
            guard let cache = Self.cache(of: state.config),
                CacheDecision(policy: state.config.cachePolicy).fallsBackToStoredCopy(after: error.type)
            else { return nil }
            return cache
        }
        guard let cache = candidate else { return false }
        DispatchQueue.global().async {
            if let cached = cache.cachedResponse(for: self.url) {
                Log.message("\(Log.masked(self.url)) could not be loaded (\(error.message)); serving the cached copy")
                self.serve(cached)
            } else {
                self.completeAfterParsing(.failed(error))
            }
        }
        return true
    }
}
