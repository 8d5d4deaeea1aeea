import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// A `DownloadCache` folder shared between processes: each a child running one test of this
/// bundle, given the folder through the environment.
final class DownloadCacheProcessTests: XCTestCase {
    private static let pathVariable = "COURIER_TEST_DOWNLOAD_CACHE"
    private static let secondsVariable = "COURIER_TEST_DOWNLOAD_CACHE_SECONDS"
    private let url = URL(string: "http://example.test/shared/resource")!
    private let sessionURL = URL(string: "http://example.test/for-the-session")!
    private let permanentURL = URL(string: "http://example.test/permanent")!

    private var childCachePath: String? {
        ChildProcess.role == nil ? nil : ProcessInfo.processInfo.environment[Self.pathVariable]
    }

    func testThatTwoProcessesStoringAndReadingOneURLNeverSeeAMixedEntry() throws {
        if let path = childCachePath {
            let seconds = Double(ProcessInfo.processInfo.environment[Self.secondsVariable] ?? "") ?? 2
            let (problems, seen) = hammer(DownloadCache(storagePath: path), writer: "child", until: Date() + seconds)
            DownloadCache(storagePath: path).store(
                .text("from the child"), for: permanentURL, storagePolicy: .permanently, maxAge: 600)
            ChildProcess.report(["problems": "\(problems.count)", "sawParent": "\(seen["parent", default: 0])"])
            problems.prefix(5).forEach { print("child problem: \($0)") }
            return
        }
        let directory = try makeTemporaryDirectory("shared-cache")
        let cache = DownloadCache(storagePath: directory.path)
        cache.store(.text("from the parent"), for: url, storagePolicy: .permanently, maxAge: 600)
        let child = Locked<ChildProcess.Result?>(nil)
        let finished = DispatchSemaphore(value: 0)
        let test =
            "CourierTests.DownloadCacheProcessTests/testThatTwoProcessesStoringAndReadingOneURLNeverSeeAMixedEntry"
        Thread.detachNewThread {
            let result = try? ChildProcess.run(
                test: test, role: "cache-hammer", timeout: 60,
                environment: [Self.pathVariable: directory.path, Self.secondsVariable: "2"])
            child.withLock { $0 = result }
            finished.signal()
        }
        // The parent stores and reads until the child is done (its own timeout bounds that).
        var problems: [String] = []
        var seen: [String: Int] = [:]
        while finished.wait(timeout: .now()) == .timedOut {
            let round = hammer(cache, writer: "parent", until: Date() + 0.05)
            problems += round.problems
            seen.merge(round.seen, uniquingKeysWith: +)
        }
        let result = try XCTUnwrap(child.current, "the child ran")
        XCTAssertEqual(result.status, 0, result.output)
        let report = try result.report("cache-hammer")
        XCTAssertEqual(report.fields["problems"], "0", result.output)
        XCTAssertEqual(problems, [])
        XCTAssertGreaterThan(Int(report.fields["sawParent"] ?? "") ?? 0, 0, "the child read what the parent stored")
        XCTAssertGreaterThan(seen["child", default: 0], 0, "the parent read what the child stored")
        XCTAssertEqual(cache.cachedText(for: permanentURL), "from the child")
    }

    /// Stores and reads `url` until `deadline`: the problems seen, and how often each writer's
    /// entry was read.
    private func hammer(
        _ cache: DownloadCache, writer: String, until deadline: Date
    ) -> (problems: [String], seen: [String: Int]) {
        var problems: [String] = []
        var seen: [String: Int] = [:]
        var round = 0
        while Date() < deadline {
            round += 1
            let body = CacheEntryBody.make(writer: writer, round: round, length: 4096)
            cache.store(
                .text(body, headers: ["X-Writer": writer]), for: url, storagePolicy: .permanently, maxAge: 600)
            if let problem = CacheEntryBody.checkPairing(cache, url) { problems.append(problem) }
            // Every store leaves an entry, so a miss means a reader found one damaged.
            guard let data = cache.cachedResponseData(for: url) else {
                problems.append("a miss")
                continue
            }
            if let problem = CacheEntryBody.check(data) { problems.append(problem) }
            seen[CacheEntryBody.writer(of: data), default: 0] += 1
        }
        return (problems, seen)
    }

    func testThatANewProcessClearsTheSessionStoreAndKeepsThePermanentOne() throws {
        if let path = childCachePath {
            let cache = DownloadCache(storagePath: path)
            ChildProcess.report([
                "session": cache.cachedText(for: sessionURL) ?? "none",
                "permanent": cache.cachedText(for: permanentURL) ?? "none",
            ])
            return
        }
        let directory = try makeTemporaryDirectory("session-cache")
        let cache = DownloadCache(storagePath: directory.path)
        cache.store(.text("session"), for: sessionURL, storagePolicy: .sessionDuration, maxAge: 600)
        cache.store(.text("permanent"), for: permanentURL, storagePolicy: .permanently, maxAge: 600)
        let again = DownloadCache(storagePath: directory.path + "/./")
        XCTAssertEqual(again.cachedText(for: sessionURL), "session", "a second cache in this process clears nothing")

        let test =
            "CourierTests.DownloadCacheProcessTests/testThatANewProcessClearsTheSessionStoreAndKeepsThePermanentOne"
        let result = try ChildProcess.run(
            test: test, role: "cache-session", timeout: 60, environment: [Self.pathVariable: directory.path])
        XCTAssertEqual(result.status, 0, result.output)
        let report = try result.report("cache-session")
        XCTAssertEqual(report.fields["session"], "none", "a new process starts with an empty session store")
        XCTAssertEqual(report.fields["permanent"], "permanent")
        XCTAssertNil(cache.cachedResponse(for: sessionURL))
        XCTAssertEqual(cache.cachedText(for: permanentURL), "permanent")
    }

    func testThatTheSharedCacheLivesUnderXDGCacheHome() throws {
        if ChildProcess.role == "cache-shared" {
            let shared = DownloadCache.shared
            var isDirectory: ObjCBool = false
            let made = FileManager.default.fileExists(
                atPath: shared.storagePath + "/PermanentStore", isDirectory: &isDirectory)
            ChildProcess.report([
                "path": shared.storagePath, "made": "\(made && isDirectory.boolValue)",
                "same": "\(shared === DownloadCache.shared)",
            ])
            return
        }
        // In a child, so that the test run never makes or clears the user's own cache folder.
        let home = try makeTemporaryDirectory("xdg-cache")
        let result = try ChildProcess.run(
            test: "CourierTests.DownloadCacheProcessTests/testThatTheSharedCacheLivesUnderXDGCacheHome",
            role: "cache-shared", timeout: 60, environment: ["XDG_CACHE_HOME": home.path])
        XCTAssertEqual(result.status, 0, result.output)
        let report = try result.report("cache-shared")
        XCTAssertEqual(report.fields["path"], home.path + "/courier/DownloadCache")
        XCTAssertEqual(report.fields["made"], "true")
        XCTAssertEqual(report.fields["same"], "true")
    }
}
