import Courier
import CourierTestSupport
import Foundation
import XCTest

/// What `DownloadCache.store` keeps and how long it stays fresh (ASIDownloadCacheTests'
/// testNoCache, testMaxAgeParsing, testCustomExpiry, test304's expiry), on real files.
final class DownloadCacheStoringTests: XCTestCase {
    private let url = URL(string: "http://example.test/page")!

    private func expiry(
        of headers: HTTPHeaders, maxAge: TimeInterval? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws -> CachedResponse {
        let cache = try makeCache()
        cache.store(.text("body", headers: headers), for: url, storagePolicy: .permanently, maxAge: maxAge)
        return try XCTUnwrap(cache.cachedResponse(for: url), "stored", file: file, line: line)
    }

    private func assertExpires(
        _ response: CachedResponse, in seconds: TimeInterval, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let expires = try XCTUnwrap(response.expires, "an expiry", file: file, line: line)
        XCTAssertEqual(expires.timeIntervalSinceNow, seconds, accuracy: 5, file: file, line: line)
    }

    func testThatOnlyASIsStatusesAreStored() throws {
        let cache = try makeCache()
        for status in [200, 201, 203, 204, 206, 300, 301, 302, 303, 304, 307, 308, 404, 410, 500, 503] {
            let url = URL(string: "http://example.test/status/\(status)")!
            cache.store(.text("s", status: status), for: url, storagePolicy: .sessionDuration, maxAge: 60)
            let stored = cache.cachedResponse(for: url)
            XCTAssertEqual(stored != nil, [200, 301, 302, 303, 307].contains(status), "status \(status)")
            XCTAssertEqual(stored?.statusCode ?? status, status)
        }
    }

    func testThatNoStoreNoCacheAndPragmaKeepAResponseOutWhileHeadersAreRespected() throws {
        let refusing: [HTTPHeaders] = [
            ["Cache-Control": "no-store"], ["Cache-Control": "no-cache"], ["Cache-Control": "private, NO-CACHE"],
            ["Cache-Control": "max-age=60, no-store"], ["Cache-Control": "no-cache=\"Set-Cookie\""],
            ["Pragma": "no-cache"], HTTPHeaders([("Cache-Control", "max-age=60"), ("Cache-Control", "no-store")]),
        ]
        let cache = try makeCache()
        XCTAssertTrue(cache.shouldRespectCacheControlHeaders, "ASI's default")
        for (index, headers) in refusing.enumerated() {
            let url = URL(string: "http://example.test/refused/\(index)")!
            cache.store(.text("x", headers: headers), for: url, storagePolicy: .permanently, maxAge: nil)
            XCTAssertNil(cache.cachedResponse(for: url), "\(headers)")
        }
        let accepted: HTTPHeaders = ["Cache-Control": "public, max-age=60, must-revalidate", "Pragma": "x"]
        cache.store(.text("x", headers: accepted), for: url, storagePolicy: .permanently, maxAge: nil)
        XCTAssertNotNil(cache.cachedResponse(for: url))

        cache.shouldRespectCacheControlHeaders = false
        for (index, headers) in refusing.enumerated() {
            let url = URL(string: "http://example.test/refused/\(index)")!
            cache.store(.text("x", headers: headers), for: url, storagePolicy: .permanently, maxAge: nil)
            XCTAssertEqual(cache.cachedResponse(for: url)?.isFresh, true, "stored and fresh when ignored: \(headers)")
        }
    }

    func testThatMaxAgeGivesFreshnessAndSMaxAgeDoesNot() throws {
        try assertExpires(expiry(of: ["Cache-Control": "max-age=120"]), in: 120)
        try assertExpires(expiry(of: ["Cache-Control": "public, s-maxage=900, max-age=\"300\", x=\"a,b\""]), in: 300)
        XCTAssertNil(try expiry(of: ["Cache-Control": "s-maxage=900"]).expires, "s-maxage is for shared caches")
        let withAge = try expiry(of: ["Cache-Control": "max-age=100", "Age": "40"])
        try assertExpires(withAge, in: 60)
        XCTAssertTrue(withAge.isFresh)
        let invalid = try expiry(of: ["Cache-Control": "max-age=soon"])
        XCTAssertFalse(invalid.isFresh, "an invalid max-age is stale")
    }

    func testThatExpiresIsMeasuredFromTheResponsesDate() throws {
        // Both in the past: only their difference counts, so a server's wrong clock does not matter.
        let dated = try expiry(of: [
            "Date": "Wed, 01 Jan 2020 00:00:00 GMT", "Expires": "Wed, 01 Jan 2020 00:01:40 GMT",
        ])
        try assertExpires(dated, in: 100)
        XCTAssertTrue(dated.isFresh)
        let undated = try expiry(of: ["Expires": "Fri, 01 Jan 2100 00:00:00 GMT"])
        XCTAssertEqual(undated.expires?.timeIntervalSince1970 ?? 0, 4_102_444_800, accuracy: 1)
        XCTAssertFalse(try expiry(of: ["Expires": "0"]).isFresh, "an invalid Expires is already expired")
        let maxAgeWins = try expiry(of: ["Cache-Control": "max-age=30", "Expires": "Fri, 01 Jan 2100 00:00:00 GMT"])
        try assertExpires(maxAgeWins, in: 30)
    }

    func testThatTheRequestsMaxAgeWinsAndNegativeIsStale() throws {
        try assertExpires(expiry(of: ["Cache-Control": "max-age=5"], maxAge: 600), in: 600)
        let stale = try expiry(of: ["Cache-Control": "max-age=600"], maxAge: -2)
        XCTAssertFalse(stale.isFresh, "ASI's testCustomExpiry: secondsToCache -2")
        XCTAssertTrue(try expiry(of: [:], maxAge: 20).isFresh, "ASI's testCustomExpiry: secondsToCache 20")
    }

    func testThatWithoutFreshnessAStoredCopyIsStaleUnlessHeadersAreIgnored() throws {
        let cache = try makeCache()
        cache.store(.text("b", headers: ["ETag": "\"1\""]), for: url, storagePolicy: .permanently, maxAge: nil)
        let stored = try XCTUnwrap(cache.cachedResponse(for: url))
        XCTAssertNil(stored.expires)
        XCTAssertFalse(stored.isFresh)
        cache.shouldRespectCacheControlHeaders = false
        XCTAssertEqual(cache.cachedResponse(for: url)?.isFresh, true)
    }

    func testThatAStoredResponseKeepsItsStatusHeadersInOrderAndBody() throws {
        let cache = try makeCache()
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-16"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
            ("X-Émoji", "☃"), ("Location", "/next"),
        ])
        cache.store(.text("moved", status: 301, headers: headers), for: url, storagePolicy: .permanently, maxAge: 60)
        let stored = try XCTUnwrap(cache.cachedResponse(for: url))
        XCTAssertEqual(stored.statusCode, 301)
        XCTAssertEqual(stored.headers, headers)
        XCTAssertEqual(stored.headers.values(for: "Set-Cookie"), ["a=1", "b=2"])
        XCTAssertEqual(cache.cachedText(for: url), "moved")
        XCTAssertEqual(try String(contentsOfFile: stored.bodyPath, encoding: .utf8), "moved")
    }

    func testThatABodyFileIsCopiedAndADeletedSourceLeavesTheEntry() throws {
        let cache = try makeCache()
        let source = try makeTemporaryDirectory("download").writeFile("download.bin", Data("from a file".utf8))
        let response = CacheableResponse(statusCode: 200, headers: [:], body: nil, bodyPath: source)
        cache.store(response, for: url, storagePolicy: .permanently, maxAge: 60)
        try FileManager.default.removeItem(atPath: source)
        XCTAssertEqual(cache.cachedText(for: url), "from a file")
        XCTAssertNotEqual(cache.pathToCachedResponseData(for: url), source)
    }

    func testThatANotModifiedRefreshesExpiryAndHeadersAndKeepsTheBody() throws {
        let cache = try makeCache()
        let headers: HTTPHeaders = [
            "Content-Type": "text/plain", "ETag": "\"v1\"", "Cache-Control": "max-age=0",
            "Last-Modified": "Wed, 01 Jan 2020 00:00:00 GMT",
        ]
        cache.store(.text("kept body", headers: headers), for: url, storagePolicy: .sessionDuration, maxAge: nil)
        XCTAssertEqual(cache.cachedResponse(for: url)?.isFresh, false)

        let notModified: HTTPHeaders = ["ETag": "\"v2\"", "Cache-Control": "max-age=300", "X-Other": "not merged"]
        cache.updateExpiry(for: url, with: notModified, maxAge: nil)
        let refreshed = try XCTUnwrap(cache.cachedResponse(for: url))
        XCTAssertTrue(refreshed.isFresh)
        try assertExpires(refreshed, in: 300)
        XCTAssertEqual(refreshed.statusCode, 200)
        XCTAssertEqual(refreshed.headers["ETag"], "\"v2\"")
        XCTAssertEqual(refreshed.headers["Content-Type"], "text/plain")
        XCTAssertEqual(refreshed.headers["Last-Modified"], "Wed, 01 Jan 2020 00:00:00 GMT")
        XCTAssertNil(refreshed.headers["X-Other"])
        XCTAssertEqual(cache.cachedText(for: url), "kept body")

        cache.updateExpiry(for: url, with: [:], maxAge: 45)
        try assertExpires(XCTUnwrap(cache.cachedResponse(for: url)), in: 45)

        let other = URL(string: "http://example.test/never-stored")!
        cache.updateExpiry(for: other, with: ["Cache-Control": "max-age=300"], maxAge: nil)
        XCTAssertNil(cache.cachedResponse(for: other), "a 304 for nothing stored stores nothing")
    }
}
