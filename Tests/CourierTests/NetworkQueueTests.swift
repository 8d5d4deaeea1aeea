import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A queue's delegate whose methods are set as the queue's selectors.
final class QueueController: @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func started(_ request: HTTPRequest) { log.add("queue.started(\(request.tag))") }
    func headers(_ request: HTTPRequest, _ headers: HTTPHeaders) { log.add("queue.headers(\(request.tag))") }
    func finished(_ request: HTTPRequest) { log.add("queue.finished(\(request.tag))") }
    func failed(_ request: HTTPRequest) { log.add("queue.failed(\(request.tag):\(request.error!.type))") }
    func queueDone(_ queue: NetworkQueue) { log.add("queue.done") }

    func attach(to queue: NetworkQueue) {
        queue.delegate = self
        queue.setRequestDidStartSelector(QueueController.started)
        queue.setRequestDidReceiveResponseHeadersSelector(QueueController.headers)
        queue.setRequestDidFinishSelector(QueueController.finished)
        queue.setRequestDidFailSelector(QueueController.failed)
        queue.setQueueDidFinishSelector(QueueController.queueDone)
    }
}

final class NetworkQueueTests: ServerTestCase {
    private func request(_ route: Route, tag: Int) -> HTTPRequest {
        let request = HTTPRequest(url: server.url(route))
        request.tag = tag
        return request
    }

    func testThatNothingStartsBeforeGoAndLaterRequestsStartAtOnce() {
        let queue = NetworkQueue()
        XCTAssertTrue(queue.isSuspended)
        XCTAssertEqual(queue.maxConcurrentOperationCount, 4)
        let first = request(.bytes(10), tag: 1)
        queue.addOperation(first)
        spinMainQueue(for: 0.3)
        XCTAssertEqual(server.requestsReceived, 0, "nothing runs before go()")
        XCTAssertEqual(queue.requestsCount, 1)
        XCTAssertFalse(first.isExecuting)

        queue.go()
        XCTAssertFalse(queue.isSuspended)
        waitUntil { first.isFinished }
        let late = request(.bytes(10), tag: 2)
        queue.addOperation(late)
        waitUntil { late.isFinished }
        XCTAssertEqual(server.requestsReceived, 2)
        XCTAssertEqual(queue.requestsCount, 0)
    }

    func testThatRequestAndQueueCallbacksComeInASIOrderOnTheQueuesCallbackQueue() {
        let marker = DispatchSpecificKey<String>()
        let callbacks = DispatchQueue(label: "queue-callbacks")
        callbacks.setSpecific(key: marker, value: "queue-callbacks")
        let queue = NetworkQueue()
        queue.callbackQueue = callbacks
        let delegate = RecordingDelegate(marker: marker)
        let request = request(.bytes(10), tag: 7)
        request.callbackQueue = .main  // the queue's callback queue wins
        request.delegate = delegate
        request.setCompletionBlock { _ in delegate.log.add("block.finished") }
        request.setStartedBlock { _ in delegate.log.add("block.started") }
        // One log for everything, to see the order across the three.
        let log = delegate.log
        queue.addOperation(request)
        let sharedController = SharedLogQueueController(log: log)
        sharedController.attach(to: queue)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(
            log.all,
            [
                "delegate.started@queue-callbacks", "block.started", "queue.started(7)",
                "delegate.headers(200)@queue-callbacks", "queue.headers(7)",
                "delegate.finished(finished=false)@queue-callbacks", "block.finished", "queue.finished(7)",
                "queue.done",
            ])
    }

    func testThatQueueDidFinishComesOnceWhenAFailureCancelsTheRest() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 5
        let controller = QueueController()
        controller.attach(to: queue)
        var requests: [HTTPRequest] = []
        for tag in 1...4 {
            let stalled = request(.stall, tag: tag)
            stalled.timeOutSeconds = 30
            requests.append(stalled)
        }
        queue.addOperations(requests, waitUntilFinished: false)
        queue.go()
        waitUntil { self.server.requestsReceived == 4 }
        // The failure comes once the four are at the server; a sixth request is still waiting.
        let failing = HTTPRequest(url: Fixture.refusedURL)
        failing.tag = 5
        let waiting = request(.bytes(10), tag: 6)
        requests += [failing, waiting]
        queue.addOperation(failing)
        queue.addOperation(waiting)
        waitUntil { requests.allSatisfy(\.isFinished) }
        let entries = controller.log.all
        XCTAssertEqual(entries.filter { $0 == "queue.done" }.count, 1, "\(entries)")
        XCTAssertEqual(entries.last, "queue.done")
        XCTAssertTrue(entries.contains("queue.failed(5:connectionFailure)"))
        for tag in [1, 2, 3, 4, 6] {
            XCTAssertTrue(entries.contains("queue.failed(\(tag):requestCancelled)"), "\(tag): \(entries)")
        }
        XCTAssertFalse(entries.contains { $0.hasPrefix("queue.finished") })
        XCTAssertEqual(queue.requestsCount, 0)
        XCTAssertTrue(server.waitForClientClose(count: 4, timeout: 2), "the stalled transfers were stopped")
        XCTAssertEqual(server.requestsReceived, 4, "the waiting request never went out")
    }

    func testThatWithoutCancelOnFailureTheOthersFinish() {
        let queue = NetworkQueue()
        queue.shouldCancelAllRequestsOnFailure = false
        let controller = QueueController()
        controller.attach(to: queue)
        let failing = HTTPRequest(url: Fixture.refusedURL)
        failing.tag = 1
        let others = [
            request(.bytes(10), tag: 2), request(.delay(milliseconds: 200), tag: 3), request(.status(404), tag: 4),
        ]
        queue.addOperation(failing)
        for other in others { queue.addOperation(other) }
        queue.go()
        waitUntilAllFinished(queue)
        let entries = controller.log.all
        XCTAssertTrue(entries.contains("queue.failed(1:connectionFailure)"))
        for tag in [2, 3, 4] { XCTAssertTrue(entries.contains("queue.finished(\(tag))"), "\(tag): \(entries)") }
        XCTAssertEqual(entries.filter { $0 == "queue.done" }.count, 1)
        XCTAssertEqual(others[2].responseStatusCode, 404)
    }

    func testThatAddFirstRunsNextWithTheLatestFirst() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1
        let order = EventLog()
        func make(_ name: String, _ route: Route) -> HTTPRequest {
            let request = HTTPRequest(url: server.url(route))
            request.setStartedBlock { _ in order.add(name) }
            return request
        }
        queue.addOperation(make("A", .delay(milliseconds: 300)))
        queue.addOperation(make("B", .bytes(1)))
        queue.addOperation(make("C", .bytes(2)))
        queue.go()
        waitUntil { order.all == ["A"] }
        queue.addFirst(make("X", .bytes(3)))
        queue.addFirst(make("Y", .bytes(4)))
        waitUntilAllFinished(queue)
        XCTAssertEqual(order.all, ["A", "Y", "X", "B", "C"])
        XCTAssertEqual(
            server.recordedRequests.map(\.target), ["/delay/300", "/bytes/4", "/bytes/3", "/bytes/1", "/bytes/2"],
            "the server saw them in that order")
    }

    func testThatTheConcurrencyLimitHolds() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 2
        let running = Locked(0)
        let peak = Locked(0)
        var requests: [HTTPRequest] = []
        for tag in 0..<8 {
            let request = request(.delay(milliseconds: 50), tag: tag)
            request.setStartedBlock { _ in
                let now = running.withLock { value -> Int in
                    value += 1
                    return value
                }
                peak.withLock { $0 = max($0, now) }
            }
            request.setCompletionBlock { _ in running.withLock { $0 -= 1 } }
            requests.append(request)
        }
        queue.addOperations(requests, waitUntilFinished: false)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(peak.withLock { $0 }, 2)
        XCTAssertTrue(requests.allSatisfy { $0.responseStatusCode == 200 })
    }

    func testThatCancelAllZeroesTheCountsAndFailsEveryRequest() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1
        let controller = QueueController()
        controller.attach(to: queue)
        let requests = (1...3).map { tag -> HTTPRequest in
            let request = request(.stall, tag: tag)
            request.timeOutSeconds = 30
            return request
        }
        queue.addOperations(requests, waitUntilFinished: false)
        XCTAssertEqual(queue.totalBytesToDownload, 3)
        queue.go()
        waitUntil { self.server.requestsReceived == 1 }
        queue.cancelAllOperations()
        XCTAssertEqual(queue.totalBytesToDownload, 0)
        XCTAssertEqual(queue.bytesDownloadedSoFar, 0)
        waitUntilAllFinished(queue)
        XCTAssertTrue(requests.allSatisfy { $0.error?.type == .requestCancelled })
        XCTAssertEqual(controller.log.all.filter { $0 == "queue.done" }.count, 1)
        XCTAssertEqual(queue.bytesDownloadedSoFar, 0, "cancelled requests no longer count")
        XCTAssertEqual(server.requestsReceived, 1)
    }

    func testThatAClearedRequestCountsButCallsNothing() {
        let queue = NetworkQueue()
        queue.shouldCancelAllRequestsOnFailure = false
        let controller = QueueController()
        controller.attach(to: queue)
        let cleared = request(.stall, tag: 1)
        let normal = request(.bytes(5), tag: 2)
        queue.addOperation(cleared)
        queue.addOperation(normal)
        queue.go()
        waitUntil { normal.isFinished && self.server.requestsReceived == 2 }
        cleared.clearDelegatesAndCancel()
        waitUntilAllFinished(queue)
        let entries = controller.log.all
        XCTAssertFalse(
            entries.contains { $0.hasPrefix("queue.failed(1") || $0.hasPrefix("queue.finished(1") }, "\(entries)")
        XCTAssertEqual(entries.last, "queue.done", "the cleared request still counts toward the queue's end")
    }

    func testThatResetCancelsForgetsAndSuspends() {
        let queue = NetworkQueue()
        let controller = QueueController()
        controller.attach(to: queue)
        let stalled = request(.stall, tag: 1)
        queue.addOperation(stalled)
        queue.go()
        waitUntil { self.server.requestsReceived == 1 }
        queue.reset()
        waitUntil { stalled.isFinished }
        XCTAssertTrue(queue.isSuspended)
        XCTAssertNil(queue.delegate)
        XCTAssertNil(queue.requestDidFinishSelector)
        let after = request(.bytes(1), tag: 2)
        queue.addOperation(after)
        spinMainQueue(for: 0.2)
        XCTAssertFalse(after.isFinished, "suspended again until go()")
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(after.responseStatusCode, 200)
    }

    func testThatWaitingOnTheMainThreadKeepsMainQueueCallbacksRunning() {
        let queue = NetworkQueue()
        let log = EventLog()
        for tag in 0..<6 {
            let request = request(.bytes(100), tag: tag)
            request.setCompletionBlock { _ in log.add(Thread.isMainThread ? "main" : "other") }
            queue.addOperation(request)
        }
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(log.all, Array(repeating: "main", count: 6))
    }

    func testThatTheSharedQueueIsGoingAndKeepsEachRequestsCallbackQueue() {
        let shared = HTTPRequest.sharedQueue
        XCTAssertFalse(shared.isSuspended)
        XCTAssertFalse(shared.shouldCancelAllRequestsOnFailure)
        XCTAssertEqual(shared.maxConcurrentOperationCount, 4)
        let marker = DispatchSpecificKey<String>()
        let mine = DispatchQueue(label: "mine")
        mine.setSpecific(key: marker, value: "mine")
        let log = EventLog()
        let failing = HTTPRequest(url: Fixture.refusedURL)
        let fine = HTTPRequest(url: server.url(.bytes(1)))
        fine.callbackQueue = mine
        fine.setCompletionBlock { _ in log.add(DispatchQueue.getSpecific(key: marker) ?? "elsewhere") }
        failing.startAsynchronous()
        fine.startAsynchronous()
        waitUntil { fine.isFinished && failing.isFinished }
        XCTAssertEqual(log.all, ["mine"])
        XCTAssertNil(fine.error, "a failure in the shared queue cancels nothing else")
    }

    func testThatTheCountsSeeWaitingRunningAndFinishedRequests() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 2
        for tag in 0..<5 { queue.addOperation(request(.delay(milliseconds: 200), tag: tag)) }
        XCTAssertEqual(queue.runningRequestsCount, 0, "nothing runs before go()")
        XCTAssertEqual(queue.requestsCount, 5)
        queue.go()
        XCTAssertEqual(queue.runningRequestsCount, 2, "go() fills the slots at once")
        XCTAssertEqual(queue.requestsCount, 5)
        waitUntilAllFinished(queue)
        XCTAssertEqual(queue.runningRequestsCount, 0)
        XCTAssertEqual(queue.requestsCount, 0)
        XCTAssertEqual(queue.requestsFinished, 5)
        XCTAssertEqual(queue.operationCount, 0)
    }

    func testThatOperationCountAndOperationsListEveryRequestUntilItFinishes() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 2
        let requests = (0..<5).map { request(.delay(milliseconds: 200), tag: $0) }
        for request in requests { queue.addOperation(request) }
        XCTAssertEqual(queue.operationCount, 5, "waiting requests before go() are operations")
        XCTAssertTrue(queue.operations.elementsEqual(requests, by: ===), "in the order they were added")
        XCTAssertFalse(requests.contains { $0.isExecuting }, "none runs before go()")
        queue.go()
        XCTAssertEqual(queue.operationCount, 5, "running and waiting requests are operations")
        XCTAssertEqual(requests.filter(\.isExecuting).count, 2)
        // ASI code waits for the count to reach 0: that means every request is done.
        let deadline = Date(timeIntervalSinceNow: 10)
        while queue.operationCount > 0, Date() < deadline {
            _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
        }
        XCTAssertEqual(queue.operationCount, 0)
        XCTAssertTrue(queue.operations.isEmpty)
        XCTAssertTrue(requests.allSatisfy(\.isFinished), "a count of 0 means every request has finished")
        XCTAssertEqual(queue.requestsFinished, 5, "and every finish callback has run")
    }

    func testThatACancelledWaitingRequestLeavesTheOperationsAtOnce() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1
        queue.shouldCancelAllRequestsOnFailure = false
        let running = request(.delay(milliseconds: 300), tag: 0)
        let waiting = request(.bytes(1), tag: 1)
        queue.addOperation(running)
        queue.addOperation(waiting)
        queue.go()
        waiting.cancel()
        waitUntil { waiting.isFinished }
        XCTAssertEqual(waiting.error?.type, .requestCancelled, "its failure comes at once")
        XCTAssertFalse(running.isFinished, "the running request did not have to finish first")
        XCTAssertEqual(queue.operationCount, 1)
        XCTAssertTrue(queue.operations.elementsEqual([running], by: ===))
        waitUntil { queue.operationCount == 0 }
        XCTAssertNil(running.error)
        XCTAssertEqual(server.recordedRequests.map(\.target), ["/delay/300"], "the cancelled one never ran")
    }

    func testThatTheSharedQueueCountsWhatStartAsynchronousAdds() {
        let before = HTTPRequest.sharedQueue.operationCount
        let request = HTTPRequest(url: server.url(.delay(milliseconds: 200)))
        request.startAsynchronous()
        XCTAssertTrue(HTTPRequest.sharedQueue.operations.contains { $0 === request })
        XCTAssertGreaterThan(HTTPRequest.sharedQueue.operationCount, before)
        waitUntil { request.isFinished }
        XCTAssertFalse(HTTPRequest.sharedQueue.operations.contains { $0 === request })
    }

    func testThatAddOperationsWaitingOnTheMainThreadKeepsMainQueueCallbacksRunning() {
        let queue = NetworkQueue()
        queue.go()
        let log = EventLog()
        let requests = (0..<3).map { tag -> HTTPRequest in
            let request = request(.bytes(10), tag: tag)
            request.setCompletionBlock { request in
                XCTAssertTrue(Thread.isMainThread)
                log.add("finished(\(request.tag))")
            }
            return request
        }
        // The requests call back on the main queue, which is this thread: waiting without running
        // it would never end.
        waitUntilAllFinished(queue) { queue.addOperations(requests, waitUntilFinished: true) }
        XCTAssertEqual(Set(log.all), ["finished(0)", "finished(1)", "finished(2)"])
        XCTAssertTrue(requests.allSatisfy(\.isFinished))
    }

    func testThatARequestWaitsForItsDependencies() {
        let queue = NetworkQueue()
        let log = EventLog()
        let first = request(.delay(milliseconds: 300), tag: 1)
        let second = request(.bytes(3), tag: 2)
        second.addDependency(first)
        for request in [second, first] {
            request.setStartedBlock { log.add("started(\($0.tag))") }
            request.setCompletionBlock { log.add("finished(\($0.tag))") }
            queue.addOperation(request)
        }
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(log.all, ["started(1)", "finished(1)", "started(2)", "finished(2)"])
        XCTAssertEqual(second.responseStatusCode, 200)
        XCTAssertEqual(queue.requestsCount, 0)
    }

    func testThatWaitingOffTheMainThreadReturnsWhenTheLastRequestFinishes() {
        let queue = NetworkQueue()
        queue.callbackQueue = DispatchQueue(label: "callbacks")
        let requests = (0..<10).map { request(.delay(milliseconds: 20 * $0), tag: $0) }
        queue.addOperations(requests, waitUntilFinished: false)
        queue.go()
        let returned = expectation(description: "wait returned")
        let finishedWhenReturned = Locked(false)
        DispatchQueue.global().async {
            queue.waitUntilAllOperationsAreFinished()
            finishedWhenReturned.withLock { $0 = requests.allSatisfy(\.isFinished) }
            returned.fulfill()
        }
        wait(for: [returned], timeout: 10)
        XCTAssertTrue(finishedWhenReturned.withLock { $0 })
        XCTAssertTrue(requests.allSatisfy { $0.responseStatusCode == 200 })
    }

    func testThatCallbacksFollowTheQueuesCallbackQueueWhenItChanges() {
        let marker = DispatchSpecificKey<String>()
        let first = DispatchQueue(label: "first", attributes: .concurrent)
        first.setSpecific(key: marker, value: "first")
        let second = DispatchQueue(label: "second")
        second.setSpecific(key: marker, value: "second")
        let queue = NetworkQueue()
        queue.callbackQueue = first
        queue.go()
        let log = EventLog()
        let early = (0..<8).map { request(.bytes(10), tag: $0) }
        for request in early {
            request.setCompletionBlock { log.add("\($0.tag):\(DispatchQueue.getSpecific(key: marker) ?? "elsewhere")") }
            queue.addOperation(request)
        }
        waitUntilAllFinished(queue)
        queue.callbackQueue = second
        let late = request(.bytes(10), tag: 99)
        late.setCompletionBlock { log.add("\($0.tag):\(DispatchQueue.getSpecific(key: marker) ?? "elsewhere")") }
        queue.addOperation(late)
        waitUntilAllFinished(queue)
        XCTAssertEqual(Set(log.all), Set((0..<8).map { "\($0):first" } + ["99:second"]))
        XCTAssertEqual(log.all.count, 9)
    }

    func testThatAddingAForeignOperationTraps() throws {
        if ChildProcess.role == "foreign-operation" {
            let queue = NetworkQueue()
            queue.addOperation(BlockOperation {})
            return
        }
        let result = try ChildProcess.run(
            test: "CourierTests.NetworkQueueTests/testThatAddingAForeignOperationTraps", role: "foreign-operation")
        XCTAssertTrue(result.terminatedBySignal, "the child trapped: \(result.output)")
        XCTAssertTrue(
            result.output.contains("NetworkQueue runs only HTTPRequest operations; BlockOperation cannot be added"),
            result.output)
    }
}

/// Logs the queue's selectors into another log, to see the order across request and queue.
final class SharedLogQueueController: @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log: EventLog
    init(log: EventLog) { self.log = log }
    func started(_ request: HTTPRequest) { log.add("queue.started(\(request.tag))") }
    func headers(_ request: HTTPRequest, _ headers: HTTPHeaders) { log.add("queue.headers(\(request.tag))") }
    func finished(_ request: HTTPRequest) { log.add("queue.finished(\(request.tag))") }
    func queueDone(_ queue: NetworkQueue) { log.add("queue.done") }

    func attach(to queue: NetworkQueue) {
        queue.delegate = self
        queue.setRequestDidStartSelector(SharedLogQueueController.started)
        queue.setRequestDidReceiveResponseHeadersSelector(SharedLogQueueController.headers)
        queue.setRequestDidFinishSelector(SharedLogQueueController.finished)
        queue.setQueueDidFinishSelector(SharedLogQueueController.queueDone)
    }
}
