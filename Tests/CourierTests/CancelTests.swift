import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Cancelling: one failure callback with `requestCancelled`, promptly, nothing after it, and the
/// transfer really stops (the server sees its connection closed).
final class CancelTests: ServerTestCase {
    func testThatCancelBeforeStartFailsOnceAndFinishesWhenAQueueStartsIt() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(.bytes(10)))
        request.delegate = delegate
        let cancelledAt = Date()
        request.cancel()
        waitUntil { delegate.log.all.count == 1 }
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        XCTAssertEqual(delegate.log.all, ["delegate.failed(requestCancelled)@main"])
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertTrue(request.isCancelled)

        let queue = OperationQueue()
        queue.addOperation(request)
        waitUntil { request.isFinished }
        waitUntilAllFinished(queue)
        XCTAssertEqual(delegate.log.all.count, 1, "no callback after the cancellation")
        XCTAssertEqual(server.connectionsAccepted, 0, "nothing was sent")
    }

    func testThatCancelWhileWaitingInAQueueFailsPromptly() {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let blocker = HTTPRequest(url: server.url(.stall))
        blocker.timeOutSeconds = 30
        let waiting = HTTPRequest(url: server.url(.bytes(10)))
        let delegate = RecordingDelegate()
        waiting.delegate = delegate
        queue.addOperation(blocker)
        queue.addOperation(waiting)
        waitUntil { self.server.requestsReceived == 1 }

        let cancelledAt = Date()
        waiting.cancel()
        waitUntil { delegate.log.all.count == 1 }
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        XCTAssertEqual(delegate.log.all, ["delegate.failed(requestCancelled)@main"])
        XCTAssertTrue(blocker.isExecuting, "the running request is untouched")

        blocker.cancel()
        waitUntil { blocker.isFinished && waiting.isFinished }
        XCTAssertEqual(blocker.error?.type, .requestCancelled)
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 2), "the server saw the stalled connection closed")
        XCTAssertEqual(server.requestsReceived, 1, "the cancelled request never reached the server")
        XCTAssertEqual(delegate.log.all.count, 1)
    }

    func testThatCancelMidBodyStopsTheTransferAndCallsBackOnce() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(.trickle(100_000, intervalMilliseconds: 5)))
        request.delegate = delegate
        request.startAsynchronous()
        waitUntil { delegate.log.all.contains("delegate.headers(200)@main") }
        let cancelledAt = Date()
        request.cancel()
        waitUntil { request.isFinished }
        XCTAssertLessThan(Date().timeIntervalSince(cancelledAt), 1)
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1), "the server saw the connection closed")
        // Nothing arrives later.
        spinMainQueue(for: 0.3)
        XCTAssertEqual(
            delegate.log.all,
            ["delegate.started@main", "delegate.headers(200)@main", "delegate.failed(requestCancelled)@main"])
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertFalse(request.error?.isTimeout ?? true, "a cancel is not a timeout")
    }

    func testThatCancelAfterFinishingChangesNothing() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(.bytes(10)))
        request.delegate = delegate
        request.startSynchronous()
        request.cancel()
        spinMainQueue(for: 0.1)
        XCTAssertNil(request.error)
        XCTAssertEqual(delegate.log.all.last, "delegate.finished(finished=false)@main")
        XCTAssertEqual(delegate.log.all.count, 3)
    }

    func testThatClearDelegatesAndCancelCallsNothingBack() {
        let delegate = RecordingDelegate()
        let blocks = EventLog()
        let request = HTTPRequest(url: server.url(.stall))
        request.delegate = delegate
        request.setFailedBlock { _ in blocks.add("failed") }
        request.setCompletionBlock { _ in blocks.add("finished") }
        request.startAsynchronous()
        // Both: `started` reaches main asynchronously, and a slow main thread (seen under TSan)
        // can still have it queued when the server already holds the request.
        waitUntil { self.server.requestsReceived == 1 && delegate.log.all == ["delegate.started@main"] }
        request.clearDelegatesAndCancel()
        waitUntil { request.isFinished }
        spinMainQueue(for: 0.2)
        XCTAssertEqual(delegate.log.all, ["delegate.started@main"], "only what came before the call")
        XCTAssertEqual(blocks.all, [])
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1))
    }

    func testThatASynchronousRequestCanBeCancelledFromAnotherThread() {
        let request = HTTPRequest(url: server.url(.stall))
        request.timeOutSeconds = 30
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { request.cancel() }
        let started = Date()
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }
}

extension CancelTests {
    func testThatARequestCancelledBeforeStartAsynchronousStillFinishes() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(.bytes(10)))
        request.delegate = delegate
        request.cancel()
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(delegate.log.all, ["delegate.failed(requestCancelled)@main"])
        XCTAssertEqual(server.connectionsAccepted, 0)
        XCTAssertEqual(HTTPRequest.sharedQueue.requestsCount, 0, "it counts for nothing in the queue")
    }
}
