@testable import Courier
import CourierTestSupport
import Foundation
import XCTest

/// A listening socket that never accepts: connections complete in the kernel's backlog and every
/// request sent on one waits for an answer that never comes, without a thread per connection.
final class SilentListener {
    let port: Int
    private let descriptor: Int32

    init(backlog: Int32 = 4096) throws {
        (descriptor, port) = try LoopbackListeningSocket.open(backlog: backlog)
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/never")! }

    deinit { close(descriptor) }
}

final class CancelStormTests: XCTestCase {
    /// 10,000 requests, 1,000 of them running against a server that never answers: one
    /// `cancelAllOperations()` delivers every failure within 5 seconds.
    func testThatCancellingTenThousandRequestsDeliversEveryFailureWithinFiveSeconds() throws {
        try skipIfQuickRun()
        let listener = try SilentListener()
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1_000
        queue.shouldCancelAllRequestsOnFailure = false
        let callbacks = DispatchQueue(label: "cancel-storm")
        queue.callbackQueue = callbacks
        let failures = Locked(0)
        let others = EventLog()
        let requests = (0..<10_000).map { _ -> HTTPRequest in
            let request = HTTPRequest(url: listener.url)
            request.timeOutSeconds = 60
            request.setFailedBlock { request in
                if request.error?.type == .requestCancelled {
                    failures.withLock { $0 += 1 }
                } else {
                    others.add("failed: \(String(describing: request.error))")
                }
            }
            request.setCompletionBlock { _ in others.add("finished") }
            return request
        }
        for request in requests { queue.addOperation(request) }
        queue.go()
        waitUntil(timeout: 30) { queue.runningRequestsCount == 1_000 }
        // Let the running ones reach the server.
        spinMainQueue(for: 0.5)
        let started = Date()
        queue.cancelAllOperations()
        waitUntil(timeout: 60) { failures.withLock { $0 } + others.all.count == 10_000 }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 5, "every failure callback within 5 s")
        XCTAssertEqual(others.all, [], "nothing but cancellations")
        waitUntil(timeout: 10) { queue.operationCount == 0 }
        XCTAssertTrue(requests.allSatisfy(\.isFinished))
        print("cancel storm: 10,000 failure callbacks in \(String(format: "%.2f", elapsed)) s")
    }

    /// The same storm against a server that accepts every connection and reads each request:
    /// 1,000 connected and waiting, 9,000 queued, cancelled 2 s after `go()`. Every failure
    /// callback runs within 5 s of `cancelAllOperations()`, the queue finishes once, and the
    /// server sees its sockets closed. It took 11-12 s on a loaded machine (2 s here) while each
    /// finishing request searched the queue's 1,000 slot holders for its own: 10,000 searches.
    func testThatCancellingTenThousandRequestsWithAThousandConnectedDeliversEveryFailureWithinFiveSeconds() throws {
        try skipIfQuickRun()
        let server = try AcceptingSilentServer()
        defer { server.stop() }
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1_000
        queue.shouldCancelAllRequestsOnFailure = false
        // Callbacks on the main queue, the default, which this thread runs while it waits.
        let ledger = StormLedger()
        queue.delegate = ledger
        queue.setRequestDidFailSelector(StormLedger.requestFailed)
        queue.setRequestDidFinishSelector(StormLedger.requestFinished)
        queue.setQueueDidFinishSelector(StormLedger.queueFinished)
        for _ in 0..<10_000 {
            let request = HTTPRequest(url: server.url)
            request.timeOutSeconds = 60
            queue.addOperation(request)
        }
        queue.go()
        let go = Date()
        waitUntil(timeout: 30, message: "1,000 connected: \(server.acceptedConnections)") {
            server.acceptedConnections >= 1_000
        }
        spinMainQueue(for: max(0, 2 - Date().timeIntervalSince(go)))
        let started = Date()
        queue.cancelAllOperations()
        waitUntil(timeout: 60, message: "every failure: \(ledger.cancelled)") { ledger.ended == 10_000 }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 5, "every failure callback within 5 s")
        XCTAssertEqual(ledger.cancelled, 10_000, "each one cancelled")
        XCTAssertEqual(ledger.finished, 0, "no success")
        waitUntil(timeout: 10, message: "queueDidFinish") { ledger.queueFinishedCount > 0 }
        XCTAssertEqual(ledger.queueFinishedCount, 1)
        waitUntil(timeout: 5, message: "sockets closed: \(server.openConnections) open") { server.openConnections == 0 }
        print("connected cancel storm: 10,000 failure callbacks in \(String(format: "%.2f", elapsed)) s")
    }
}

/// What a storm's queue delegate heard.
final class StormLedger: @unchecked Sendable {
    // @unchecked Sendable: the counts are only touched under `lock`.
    private let lock = NSLock()
    private var counts = (cancelled: 0, other: 0, finished: 0, queueFinished: 0)

    private func update(_ change: (inout (cancelled: Int, other: Int, finished: Int, queueFinished: Int)) -> Void) {
        lock.lock()
        change(&counts)
        lock.unlock()
    }

    func requestFailed(_ request: HTTPRequest) {
        let isCancel = request.error?.type == .requestCancelled
        update { isCancel ? ($0.cancelled += 1) : ($0.other += 1) }
    }
    func requestFinished(_ request: HTTPRequest) { update { $0.finished += 1 } }
    func queueFinished(_ queue: NetworkQueue) { update { $0.queueFinished += 1 } }

    private var snapshot: (cancelled: Int, other: Int, finished: Int, queueFinished: Int) {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }
    var cancelled: Int { snapshot.cancelled }
    var finished: Int { snapshot.finished }
    var ended: Int { snapshot.cancelled + snapshot.other + snapshot.finished }
    var queueFinishedCount: Int { snapshot.queueFinished }
}
