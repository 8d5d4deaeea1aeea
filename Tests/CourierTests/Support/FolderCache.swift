import Courier
import Foundation

/// A small `CacheDelegate` of the tests' own, as a user may bring: entries in memory, bodies in
/// a folder. It shows the request's side of the cache works with any conforming cache; the
/// `DownloadCache` has tests of its own. Freshness: `maxAge`, else the response's max-age.
final class FolderCache: CacheDelegate, @unchecked Sendable {
    // @unchecked Sendable: `entries` is guarded by `lock`; the rest is set once.
    let folder: URL
    let defaultCachePolicy: CachePolicy
    let shouldRespectCacheControlHeaders = true
    private let lock = NSLock()
    private var entries: [String: (status: Int, headers: HTTPHeaders, path: String, expires: Date?)] = [:]
    private(set) var stores = 0

    init(folder: URL, defaultCachePolicy: CachePolicy = .useDefault) {
        self.folder = folder
        self.defaultCachePolicy = defaultCachePolicy
    }

    func cachedResponse(for url: URL) -> CachedResponse? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[url.absoluteString] else { return nil }
        return CachedResponse(
            statusCode: entry.status, headers: entry.headers, bodyPath: entry.path, expires: entry.expires,
            isFresh: entry.expires.map { $0 > Date() } ?? false)
    }

    func store(_ response: CacheableResponse, for url: URL, storagePolicy: CacheStoragePolicy, maxAge: TimeInterval?) {
        let control = response.headers["Cache-Control"] ?? ""
        guard [200, 301, 302, 303, 307].contains(response.statusCode), !control.contains("no-store") else { return }
        let path = folder.appendingPathComponent(UUID().uuidString).path
        if let source = response.bodyPath {
            try? FileManager.default.copyItem(atPath: source, toPath: path)
        } else {
            _ = FileManager.default.createFile(atPath: path, contents: response.body ?? Data())
        }
        lock.lock()
        defer { lock.unlock() }
        stores += 1
        entries[url.absoluteString] = (
            response.statusCode, response.headers, path, Self.expiry(maxAge: maxAge, headers: response.headers)
        )
    }

    func updateExpiry(for url: URL, with headers: HTTPHeaders, maxAge: TimeInterval?) {
        lock.lock()
        defer { lock.unlock() }
        entries[url.absoluteString]?.expires = Self.expiry(maxAge: maxAge, headers: headers)
    }

    func removeCachedResponse(for url: URL) {
        lock.lock()
        defer { lock.unlock() }
        entries[url.absoluteString] = nil
    }

    func clearCachedResponses(for storagePolicy: CacheStoragePolicy) {
        lock.lock()
        defer { lock.unlock() }
        entries = [:]
    }

    func cachedResponseData(for url: URL) -> Data? {
        cachedResponse(for: url).flatMap { FileManager.default.contents(atPath: $0.bodyPath) }
    }

    func pathToCachedResponseData(for url: URL) -> String? {
        cachedResponse(for: url)?.bodyPath
    }

    private static func expiry(maxAge: TimeInterval?, headers: HTTPHeaders) -> Date? {
        if let maxAge { return Date(timeIntervalSinceNow: maxAge) }
        guard let control = headers["Cache-Control"], let range = control.range(of: "max-age=") else { return nil }
        let digits = control[range.upperBound...].prefix { $0.isNumber }
        return TimeInterval(digits).map { Date(timeIntervalSinceNow: $0) }
    }
}
