import Foundation

extension DownloadCache {
    /// Stores `response` for `url` in the store `storagePolicy` names, replacing what either
    /// store held for it, when the cache allows it (`CacheRules.allowsStoring`: status 200, 301,
    /// 302, 303 or 307 and, when respecting the headers, no no-store/no-cache). It is fresh for
    /// `maxAge` seconds when given, else as its headers say (`CacheRules.expiry`). The body is
    /// copied from `bodyPath` when given, else taken from `body` (none stores an empty body).
    /// A store that fails (a full disk) is logged and leaves no entry. Any thread; the body is
    /// written before this returns.
    public func store(
        _ response: CacheableResponse, for url: URL, storagePolicy: CacheStoragePolicy, maxAge: TimeInterval?
    ) {
        guard
            CacheRules.allowsStoring(
                statusCode: response.statusCode, headers: response.headers,
                respectingHeaders: shouldRespectCacheControlHeaders)
        else { return }
        let key = CacheKey(url)
        let now = Date()
        let expires = CacheRules.expiry(for: response.headers, maxAge: maxAge, now: now)
        let body: CacheStoreFolder.Body = response.bodyPath.map { .file($0) } ?? .data(response.body ?? Data())
        let target = folder(for: storagePolicy)
        do {
            try target.write(body, for: key) { length in
                CacheEntryMetadata(
                    url: key.recordedURL, statusCode: response.statusCode, headers: response.headers, storedAt: now,
                    expires: expires, bodyLength: length)
            }
        } catch {
            Log.message("the response for \(Log.masked(url)) could not be cached: \(error)")
            target.remove(key)
            return
        }
        // Lookups read the session store first: an older copy left there would hide this one.
        folder(for: storagePolicy == .sessionDuration ? .permanently : .sessionDuration).remove(key)
    }

    /// The server answered 304 for `url`: the stored copy (body and status kept) takes the 304's
    /// ETag, Date, Expires, Cache-Control and Last-Modified, and is fresh again for `maxAge`
    /// seconds when given, else as its updated headers say. Nothing stored, nothing done. Any
    /// thread.
    public func updateExpiry(for url: URL, with headers: HTTPHeaders, maxAge: TimeInterval?) {
        let key = CacheKey(url)
        let now = Date()
        for folder in [folder(for: .sessionDuration), folder(for: .permanently)] {
            do {
                let updated = try folder.updateMetadata(for: key) { metadata in
                    var stored = metadata.httpHeaders
                    for name in CacheRules.fieldsUpdatedByNotModified {
                        if let value = headers[name] { stored[name] = value }
                    }
                    let expires = CacheRules.expiry(for: stored, maxAge: maxAge, now: now)
                    metadata.headers = stored.map { .init(name: $0.name, value: $0.value) }
                    metadata.expires = expires?.timeIntervalSince1970
                }
                if updated { return }
            } catch {
                Log.message("the cached response for \(Log.masked(url)) could not be refreshed: \(error)")
                return
            }
        }
    }
}
