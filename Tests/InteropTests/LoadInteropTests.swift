import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The load tests' queue and concurrency cases against nginx, a server that is not ours.
final class LoadInteropTests: XCTestCase {
    /// Counts each request's endings by tag, and the queue's end.
    private final class Ledger: @unchecked Sendable {
        // @unchecked Sendable: the counts are only touched under `lock`.
        private let lock = NSLock()
        private var endings: [Int]
        private var failures: [String] = []
        private var queueEnds = 0
        init(count: Int) { endings = Array(repeating: 0, count: count) }
        func finished(_ request: HTTPRequest) { lock.withLock { endings[request.tag] += 1 } }
        func failed(_ request: HTTPRequest) {
            let error = String(describing: request.error)
            lock.withLock {
                endings[request.tag] += 1
                failures.append(error)
            }
        }
        func queueDone(_ queue: NetworkQueue) { lock.withLock { queueEnds += 1 } }
        var notEndedOnce: [Int] { lock.withLock { (0..<endings.count).filter { endings[$0] != 1 } } }
        var failureList: [String] { lock.withLock { failures } }
        var queueDidFinishCount: Int { lock.withLock { queueEnds } }
    }

    /// The last fraction given.
    private final class Fraction: ProgressDelegate, @unchecked Sendable {
        // @unchecked Sendable: `last` is only touched under `lock`.
        private let lock = NSLock()
        private var last: Double?
        func setProgress(_ progress: Double) { lock.withLock { last = progress } }
        var value: Double? { lock.withLock { last } }
    }

    private func makeQueue(_ ledger: Ledger, concurrency: Int) -> NetworkQueue {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = concurrency
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = DispatchQueue(label: "load-interop")
        queue.delegate = ledger
        queue.setRequestDidFinishSelector(Ledger.finished)
        queue.setRequestDidFailSelector(Ledger.failed)
        queue.setQueueDidFinishSelector(Ledger.queueDone)
        return queue
    }

    /// 10,000 GETs of 16 files of different sizes from nginx, 16 at a time, accurate progress.
    func testThatTenThousandQueuedRequestsToNginxEndOnceWithExactProgress() throws {
        try skipIfQuickRun()
        let servers = try InteropServers.shared
        let sizes = (0..<16).map { 1 + $0 * 997 }
        for (index, size) in sizes.enumerated() { try servers.makeFile(named: "load/\(index).bin", size: size) }
        let count = 10_000
        let started = Date()
        let ledger = Ledger(count: count)
        let queue = makeQueue(ledger, concurrency: 16)
        queue.showAccurateProgress = true
        let progress = Fraction()
        queue.downloadProgressDelegate = progress
        var expected: Int64 = 0
        for tag in 0..<count {
            let request = HTTPRequest(url: servers.nginxURL("/files/load/\(tag % sizes.count).bin"))
            request.tag = tag
            request.allowCompressedResponse = false
            expected += Int64(sizes[tag % sizes.count])
            queue.addOperation(request)
        }
        queue.go()
        waitUntil(timeout: 300, message: "every request finished") { queue.operationCount == 0 }
        if queue.operationCount > 0 { queue.cancelAllOperations() }
        waitUntil(timeout: 10, message: "queueDidFinish") { ledger.queueDidFinishCount > 0 }
        spinMainQueue(for: 0.2)
        XCTAssertEqual(ledger.failureList.prefix(3), [])
        XCTAssertEqual(ledger.notEndedOnce, [], "every request ends exactly once")
        XCTAssertEqual(ledger.queueDidFinishCount, 1)
        XCTAssertEqual(queue.totalBytesToDownload, expected)
        XCTAssertEqual(queue.bytesDownloadedSoFar, expected)
        XCTAssertEqual(progress.value, 1.0)
        print(String(format: "load: nginx 10,000 queued concurrency=16 time=%.2fs", Date().timeIntervalSince(started)))
    }

    /// 1,000 transfers of 256 KiB from nginx at once, to disk, byte for byte. nginx here takes
    /// 4,096 connections (`worker_connections`), so all 1,000 fit beside the listeners and the
    /// connections earlier tests left idle (1,024 did not always: some got an empty reply).
    func testThatAThousandConcurrentDownloadsFromNginxAreByteExact() throws {
        try skipIfQuickRun()
        let servers = try InteropServers.shared
        let size = 256 * 1024
        try servers.makeFile(named: "load/concurrent.bin", size: size)
        let directory = try makeTemporaryDirectory("courier-load-nginx")
        let count = 1_000
        let started = Date()
        let ledger = Ledger(count: count)
        let queue = makeQueue(ledger, concurrency: count)
        for tag in 0..<count {
            let request = HTTPRequest(url: servers.nginxURL("/files/load/concurrent.bin"))
            request.tag = tag
            request.timeOutSeconds = 120
            request.downloadDestinationPath = directory.appendingPathComponent("\(tag).bin").path
            queue.addOperation(request)
        }
        queue.go()
        waitUntil(timeout: 180, message: "every request finished") { queue.operationCount == 0 }
        if queue.operationCount > 0 { queue.cancelAllOperations() }
        waitUntil(timeout: 10, message: "queueDidFinish") { ledger.queueDidFinishCount > 0 }
        XCTAssertEqual(ledger.failureList.prefix(3), [])
        XCTAssertEqual(ledger.notEndedOnce, [], "every request ends exactly once")
        let expected = TestServer.deterministicBytes(count: size)
        let wrong = (0..<count).filter {
            FileManager.default.contents(atPath: directory.appendingPathComponent("\($0).bin").path) != expected
        }
        XCTAssertEqual(wrong, [], "files byte for byte")
        print(String(format: "load: nginx 1,000 concurrent to disk time=%.2fs", Date().timeIntervalSince(started)))
    }
}
