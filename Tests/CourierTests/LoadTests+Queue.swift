import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// One queue with 10,000 requests, and 100 queues at once, against the fixture server.
final class LoadQueueTests: XCTestCase {
    /// 10,000 GETs of different sizes, 16 at a time, with accurate progress (a HEAD for each first):
    /// each request ends exactly once, the byte counts end exact, and the queue ends once.
    func testThatTenThousandQueuedRequestsEndOnceWithExactProgress() throws {
        try skipIfQuickRun()
        let count = 10_000
        let fdsBefore = LoadProbe.baselineDescriptors()
        let started = Date()
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 16
        queue.showAccurateProgress = true
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = DispatchQueue(label: "load-10000")
        let ledger = EndingLedger(count: count)
        let progress = LastProgress()
        queue.delegate = ledger
        queue.downloadProgressDelegate = progress
        queue.setRequestDidFinishSelector(EndingLedger.requestFinished)
        queue.setRequestDidFailSelector(EndingLedger.requestFailed)
        queue.setQueueDidFinishSelector(EndingLedger.queueFinished)
        var expectedBytes: Int64 = 0
        for tag in 0..<count {
            let size = 1 + (tag * 7919) % 4096
            expectedBytes += Int64(size)
            let request = HTTPRequest(url: Fixture.url(.bytes(size)))
            request.tag = tag
            request.allowCompressedResponse = false
            queue.addOperation(request)
        }
        queue.go()
        waitUntilAllFinished(queue, timeout: 240)
        waitUntil(timeout: 10, message: "queueDidFinish") { ledger.queueDidFinishCount > 0 }
        spinMainQueue(for: 0.2)
        XCTAssertEqual(ledger.failures, [:])
        XCTAssertEqual(ledger.tagsNotEndedOnce, [], "every request ends exactly once")
        XCTAssertEqual(ledger.queueDidFinishCount, 1, "queueDidFinish exactly once")
        XCTAssertEqual(queue.totalBytesToDownload, expectedBytes, "the HEADs' sizes add up to the bodies")
        XCTAssertEqual(queue.bytesDownloadedSoFar, expectedBytes)
        XCTAssertEqual(progress.lastFraction, 1.0, "the last setProgress")
        XCTAssertEqual(progress.callsAboveOne, 0)
        let fdsAfter = waitForDescriptors(backTo: fdsBefore)
        LoadProbe.report(
            "10,000 queued (accurate progress)", requests: count, concurrency: 16, fdsBefore: fdsBefore,
            fdsAfter: fdsAfter, started: started)
    }

    /// 100 queues at once, each with 20 requests at its default 4 at a time: every queue ends
    /// once, after each of its requests has ended once with the right bytes.
    func testThatAHundredQueuesAtOnceEachFinishTheirTwentyRequests() throws {
        try skipIfQuickRun()
        let queues = 100
        let perQueue = 20
        let fdsBefore = LoadProbe.baselineDescriptors()
        let started = Date()
        let callbacks = DispatchQueue(label: "load-100-queues", attributes: .concurrent)
        let ledgers = (0..<queues).map { _ in EndingLedger(count: perQueue) }
        let badBodies = Locked(0)
        let networkQueues = (0..<queues).map { index -> NetworkQueue in
            let queue = NetworkQueue()
            queue.callbackQueue = callbacks
            queue.delegate = ledgers[index]
            queue.setRequestDidFinishSelector(EndingLedger.requestFinished)
            queue.setRequestDidFailSelector(EndingLedger.requestFailed)
            queue.setQueueDidFinishSelector(EndingLedger.queueFinished)
            for tag in 0..<perQueue {
                let size = 100 * (index + 1) + tag
                let request = HTTPRequest(url: Fixture.url(.bytes(size)))
                request.tag = tag
                request.setCompletionBlock { request in
                    if request.responseData() != TestServer.deterministicBytes(count: size) {
                        badBodies.withLock { $0 += 1 }
                    }
                }
                queue.addOperation(request)
            }
            return queue
        }
        // From several threads at once, as many independent parts of a program would.
        DispatchQueue.concurrentPerform(iterations: queues) { networkQueues[$0].go() }
        waitUntil(timeout: 120, message: "every queue's queueDidFinish") {
            ledgers.allSatisfy { $0.queueDidFinishCount > 0 }
        }
        spinMainQueue(for: 0.2)
        for (index, ledger) in ledgers.enumerated() {
            XCTAssertEqual(ledger.failures, [:], "queue \(index)")
            XCTAssertEqual(ledger.tagsNotEndedOnce, [], "queue \(index): each request once")
            XCTAssertEqual(ledger.queueDidFinishCount, 1, "queue \(index): queueDidFinish once")
        }
        XCTAssertEqual(badBodies.current, 0, "bodies byte for byte")
        XCTAssertTrue(networkQueues.allSatisfy { $0.operationCount == 0 })
        let fdsAfter = waitForDescriptors(backTo: fdsBefore)
        LoadProbe.report(
            "100 queues x 20", requests: queues * perQueue, concurrency: queues * 4, fdsBefore: fdsBefore,
            fdsAfter: fdsAfter, started: started)
    }
}
