import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// `DownloadCache`'s folders: the two stores, clearing, removal, damaged entries, file names a
/// server cannot steer, and stores from many threads at once. Real files in a temporary folder.
final class DownloadCacheTests: XCTestCase {
    private let url = URL(string: "http://example.test/a/page")!

    func testThatTheDefaultsAreASIs() throws {
        let cache = try makeCache()
        XCTAssertEqual(cache.defaultCachePolicy, .askServerIfModifiedWhenStale)
        cache.defaultCachePolicy = [.onlyLoadIfNotCached, .fallbackToCacheIfLoadFails]
        XCTAssertEqual(cache.defaultCachePolicy, [.onlyLoadIfNotCached, .fallbackToCacheIfLoadFails])
        cache.defaultCachePolicy = .useDefault
        XCTAssertEqual(cache.defaultCachePolicy, .askServerIfModifiedWhenStale, "useDefault means ASI's default")
        XCTAssertTrue(cache.shouldRespectCacheControlHeaders)
        var isDirectory: ObjCBool = false
        for store in ["SessionStore", "PermanentStore"] {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: cache.storagePath + "/" + store, isDirectory: &isDirectory))
            XCTAssertTrue(isDirectory.boolValue)
        }
    }

    func testThatARelativeStoragePathIsMadeAbsolute() throws {
        let directory = try makeTemporaryDirectory("relative")
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        let cache = DownloadCache(storagePath: "cache/./here")
        XCTAssertEqual(cache.storagePath, directory.path + "/cache/here")
        cache.store(.text("x"), for: url, storagePolicy: .permanently, maxAge: 60)
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(previous))
        XCTAssertEqual(cache.cachedText(for: url), "x", "found after the current directory changed")
    }

    func testThatTheDefaultStoragePathIsUnderTheXDGCacheFolder() {
        let environment = ProcessInfo.processInfo.environment
        let expected: String
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            expected = cache + "/courier/DownloadCache"
        } else {
            expected = (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/courier/DownloadCache"
        }
        XCTAssertEqual(DownloadCache.defaultStoragePath, expected)
    }

    func testThatEachStoreHoldsItsOwnEntriesAndClearingOneLeavesTheOther() throws {
        let cache = try makeCache()
        let session = URL(string: "http://example.test/session")!
        cache.store(.text("for the session"), for: session, storagePolicy: .sessionDuration, maxAge: 60)
        cache.store(.text("kept"), for: url, storagePolicy: .permanently, maxAge: 60)
        XCTAssertEqual(cache.cachedText(for: session), "for the session")
        XCTAssertTrue(
            cache.pathToCachedResponseData(for: session)?.hasPrefix(cache.storagePath + "/SessionStore/") ?? false)
        XCTAssertTrue(
            cache.pathToCachedResponseData(for: url)?.hasPrefix(cache.storagePath + "/PermanentStore/") ?? false)

        cache.clearCachedResponses(for: .sessionDuration)
        XCTAssertNil(cache.cachedResponse(for: session))
        XCTAssertNil(cache.cachedResponseData(for: session))
        XCTAssertNil(cache.pathToCachedResponseData(for: session))
        XCTAssertEqual(cache.cachedText(for: url), "kept")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.storagePath + "/SessionStore"), [])

        cache.clearCachedResponses(for: .permanently)
        XCTAssertNil(cache.cachedResponse(for: url))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: cache.storagePath + "/PermanentStore"), [])
    }

    func testThatANewerStoreInTheOtherStoreReplacesTheOlderCopy() throws {
        let cache = try makeCache()
        cache.store(.text("old, for the session"), for: url, storagePolicy: .sessionDuration, maxAge: 60)
        cache.store(.text("new, permanent"), for: url, storagePolicy: .permanently, maxAge: 60)
        XCTAssertEqual(cache.cachedText(for: url), "new, permanent", "the session store is read first")
        cache.store(.text("newer, for the session"), for: url, storagePolicy: .sessionDuration, maxAge: 60)
        cache.clearCachedResponses(for: .sessionDuration)
        XCTAssertNil(cache.cachedResponse(for: url), "the permanent copy went when the session one replaced it")
    }

    func testThatRemovingAResponseRemovesItsFilesAndATrailingSlashNamesTheSameEntry() throws {
        let cache = try makeCache()
        cache.store(.text("x"), for: URL(string: "http://example.test/dir/")!, storagePolicy: .permanently, maxAge: 60)
        let dir = URL(string: "http://example.test/dir")!
        XCTAssertEqual(cache.cachedText(for: dir), "x", "one trailing / is not part of the key (ASI)")
        let body = try XCTUnwrap(cache.pathToCachedResponseData(for: dir))
        let metadata = try XCTUnwrap(cache.metadataPath(for: dir))
        XCTAssertTrue(FileManager.default.fileExists(atPath: metadata))
        cache.removeCachedResponse(for: dir)
        XCTAssertNil(cache.cachedResponse(for: dir))
        XCTAssertNil(cache.pathToCachedResponseData(for: dir))
        XCTAssertFalse(FileManager.default.fileExists(atPath: body))
        XCTAssertFalse(FileManager.default.fileExists(atPath: metadata))
    }

    func testThatAPasswordInTheURLIsNotWrittenToTheCacheFolder() throws {
        let cache = try makeCache()
        let url = URL(string: "http://alice:s3cret-pw@example.test/private")!
        cache.store(.text("mine"), for: url, storagePolicy: .permanently, maxAge: 60)
        XCTAssertEqual(cache.cachedText(for: url), "mine")
        let metadata = try String(contentsOfFile: XCTUnwrap(cache.metadataPath(for: url)), encoding: .utf8)
        XCTAssertFalse(metadata.contains("s3cret-pw"), metadata)
        XCTAssertTrue(metadata.contains("example.test"), metadata)
        XCTAssertNil(cache.cachedResponse(for: URL(string: "http://alice:other@example.test/private")!))
    }

    func testThatATruncatedBodyIsAMissAndIsRemoved() throws {
        let cache = try makeCache()
        cache.store(.text("a body of some length"), for: url, storagePolicy: .permanently, maxAge: 60)
        let body = try XCTUnwrap(cache.pathToCachedResponseData(for: url))
        let metadata = try XCTUnwrap(cache.metadataPath(for: url))
        try Data("a body".utf8).write(to: URL(fileURLWithPath: body))
        XCTAssertNil(cache.cachedResponse(for: url))
        XCTAssertFalse(FileManager.default.fileExists(atPath: body))
        XCTAssertFalse(FileManager.default.fileExists(atPath: metadata))
        XCTAssertNil(cache.cachedResponseData(for: url))
        cache.store(.text("again"), for: url, storagePolicy: .permanently, maxAge: 60)
        XCTAssertEqual(cache.cachedText(for: url), "again", "the entry can be stored afresh")
    }

    func testThatDamagedMetadataIsAMissAndIsRemoved() throws {
        let cache = try makeCache()
        for (index, damage) in ["{\"version\":1,\"url\":", "", "not json", "{\"version\":99}"].enumerated() {
            let url = URL(string: "http://example.test/damaged/\(index)")!
            cache.store(.text("body"), for: url, storagePolicy: .sessionDuration, maxAge: 60)
            let body = try XCTUnwrap(cache.pathToCachedResponseData(for: url))
            let metadata = try XCTUnwrap(cache.metadataPath(for: url))
            try Data(damage.utf8).write(to: URL(fileURLWithPath: metadata))
            XCTAssertNil(cache.cachedResponseData(for: url), damage)
            XCTAssertFalse(FileManager.default.fileExists(atPath: body), damage)
            XCTAssertFalse(FileManager.default.fileExists(atPath: metadata), damage)
        }
    }

    func testThatAMissingBodyOrAMissingMetadataIsAMissAndTheRestIsRemoved() throws {
        let cache = try makeCache()
        cache.store(.text("body"), for: url, storagePolicy: .permanently, maxAge: 60)
        let metadata = try XCTUnwrap(cache.metadataPath(for: url))
        try FileManager.default.removeItem(atPath: XCTUnwrap(cache.pathToCachedResponseData(for: url)))
        XCTAssertNil(cache.pathToCachedResponseData(for: url))
        XCTAssertFalse(FileManager.default.fileExists(atPath: metadata))

        // What a writer killed between its renames leaves: a body, no metadata.
        cache.store(.text("body"), for: url, storagePolicy: .permanently, maxAge: 60)
        let body = try XCTUnwrap(cache.pathToCachedResponseData(for: url))
        try FileManager.default.removeItem(atPath: XCTUnwrap(cache.metadataPath(for: url)))
        XCTAssertNil(cache.cachedResponse(for: url))
        XCTAssertFalse(FileManager.default.fileExists(atPath: body))
    }

    func testThatAFIFOOrALinkInPlaceOfAnEntrysFileIsAMissAndIsRemoved() throws {
        let cache = try makeCache()
        let outside = try makeTemporaryDirectory("outside").writeFile("secret", Data("not the cache's".utf8))
        for (index, plant) in ["fifo body", "fifo metadata", "link body"].enumerated() {
            let url = URL(string: "http://example.test/planted/\(index)")!
            cache.store(.text("not the cache's"), for: url, storagePolicy: .permanently, maxAge: 60)
            let body = try XCTUnwrap(cache.pathToCachedResponseData(for: url))
            let metadata = try XCTUnwrap(cache.metadataPath(for: url))
            let target = plant.hasSuffix("body") ? body : metadata
            try FileManager.default.removeItem(atPath: target)
            if plant.hasPrefix("fifo") {
                XCTAssertEqual(mkfifo(target, 0o600), 0)
            } else {
                try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: outside)
            }
            // A reader must not block opening a FIFO, nor follow a link out of the folder.
            XCTAssertNil(cache.cachedResponseData(for: url), plant)
            XCTAssertNil(try? FileManager.default.attributesOfItem(atPath: target), "\(plant) removed")
        }
        XCTAssertEqual(try String(contentsOfFile: outside, encoding: .utf8), "not the cache's")
    }

    func testThatFileNamesFromAServerStayInsideTheCacheFolder() throws {
        let root = try makeTemporaryDirectory("cache-root")
        let cache = DownloadCache(storagePath: root.appendingPathComponent("cache").path)
        let hostile = [
            "http://example.test/../../../../../../tmp/escaped", "http://example.test/a/..%2F..%2F..%2Fescaped.txt",
            "http://example.test/x?file=../../../escaped", "http://example.test/%00%0A%2F.",
            "http://example.test/" + String(repeating: "long-", count: 200) + ".txt",
            "http://example.test/file.ph%2Fp", "http://example.test/file.abcdefghijk", "http://[::1]:8080/p;q=../x",
        ]
        let namePattern = try NSRegularExpression(pattern: "^[0-9a-f]{64}\\.[A-Za-z0-9]{1,8}$")
        for string in hostile {
            let url = try XCTUnwrap(URL(string: string), string)
            cache.store(.text(string), for: url, storagePolicy: .permanently, maxAge: 60)
            XCTAssertEqual(cache.cachedText(for: url), string)
            let path = try XCTUnwrap(cache.pathToCachedResponseData(for: url), string)
            XCTAssertEqual((path as NSString).deletingLastPathComponent, cache.storagePath + "/PermanentStore", string)
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(
                namePattern.numberOfMatches(in: name, range: NSRange(location: 0, length: name.utf16.count)), 1, name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path), ["cache"], "nothing escaped")
        let stored = try FileManager.default.contentsOfDirectory(atPath: cache.storagePath + "/PermanentStore")
        XCTAssertEqual(stored.count, hostile.count * 2, "a body and a metadata file each, nothing else")
    }

    func testThatBodyFilesTakeTheURLsExtensionOrHTMLAsASIs() throws {
        let cache = try makeCache()
        let cases = [
            "logo.png": "png", "a.tar.gz": "gz", "page": "html", "": "html", "script.php": "html", "s.ASPX": "html",
            "x.jsp": "html", "x.rb": "html", "x.py": "html", "x.pl": "html", "x.cgi": "html", "x.asp": "html",
        ]
        for (name, expected) in cases {
            let url = URL(string: "http://example.test/" + name)!
            cache.store(.text(name), for: url, storagePolicy: .sessionDuration, maxAge: 60)
            XCTAssertEqual(
                (try XCTUnwrap(cache.pathToCachedResponseData(for: url)) as NSString).pathExtension, expected, name)
        }
    }

    func testThatStoresAndReadsFromManyThreadsNeverSeeAMixedOrPartEntry() throws {
        let cache = try makeCache()
        let failures = FailureLog()
        let url = url
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            for round in 0..<40 {
                let body = CacheEntryBody.make(writer: "thread\(writer)", round: round)
                let headers: HTTPHeaders = ["X-Writer": "thread\(writer)", "Cache-Control": "max-age=60"]
                let policy: CacheStoragePolicy = round % 5 == 0 ? .sessionDuration : .permanently
                cache.store(.text(body, headers: headers), for: url, storagePolicy: policy, maxAge: nil)
                if let data = cache.cachedResponseData(for: url), let problem = CacheEntryBody.check(data) {
                    failures.add(problem)
                }
                if let problem = CacheEntryBody.checkPairing(cache, url) { failures.add(problem) }
            }
        }
        XCTAssertEqual(failures.all, [])
        let last = try XCTUnwrap(cache.cachedResponseData(for: url), "one of the stores is there at the end")
        XCTAssertNil(CacheEntryBody.check(last))
        for store in ["SessionStore", "PermanentStore"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: cache.storagePath + "/" + store)
            XCTAssertFalse(names.contains { $0.hasPrefix(".tmp-") }, "no temporary file left: \(names)")
        }
    }
}

/// Bodies that say who wrote them and how long they are, so a reader can tell a whole one.
enum CacheEntryBody {
    /// A body whose length depends on the round, or is always the same when `length` is given
    /// (a body beside another writer's metadata then has the length that metadata expects).
    static func make(writer: String, round: Int, length: Int? = nil) -> String {
        let length = length ?? 200 + (round * 7919) % 20_000
        let head = "\(writer):\(length):"
        return head + String(repeating: "x", count: length - head.utf8.count)
    }

    /// Nil for a whole body, else what is wrong with it.
    static func check(_ data: Data) -> String? {
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.split(separator: ":", maxSplits: 2)
        guard parts.count == 3, let length = Int(parts[1]) else { return "an unreadable body of \(data.count) bytes" }
        return data.count == length ? nil : "a body of \(data.count) bytes instead of \(length)"
    }

    /// Nil when the entry for `url`, read as a request reads it (metadata and body together),
    /// has a whole body written by the writer its headers name, else what is wrong.
    static func checkPairing(_ cache: DownloadCache, _ url: URL) -> String? {
        guard let hit = cache.lookUp(CacheKey(url), openingBody: true) else { return nil }
        guard let data = try? hit.body?.readToEnd() else { return "an unreadable body" }
        if let problem = check(data) { return problem }
        let named = hit.metadata.httpHeaders["X-Writer"] ?? "nobody"
        return named == writer(of: data) ? nil : "headers of \(named) beside a body of \(writer(of: data))"
    }

    /// The writer named at the start of a body.
    static func writer(of data: Data) -> String {
        String(String(decoding: data.prefix(64), as: UTF8.self).split(separator: ":").first ?? "")
    }
}

/// Problems seen on several threads, collected under a lock.
final class FailureLog: @unchecked Sendable {
    private let lock = NSLock()
    private var problems: [String] = []

    func add(_ problem: String) {
        lock.lock()
        problems.append(problem)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return problems
    }
}
