import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// A delegate that writes down every event, the thread it came on, and what the request showed.
final class RecordingDelegate: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked; `marker` is read-only.
    let log = EventLog()
    let marker: DispatchSpecificKey<String>?

    init(marker: DispatchSpecificKey<String>? = nil) { self.marker = marker }

    private func callbackLocation() -> String {
        if let marker, let value = DispatchQueue.getSpecific(key: marker) { return value }
        return Thread.isMainThread ? "main" : "other"
    }

    func requestStarted(_ request: HTTPRequest) { log.add("delegate.started@\(callbackLocation())") }
    func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
        log.add("delegate.headers(\(request.responseStatusCode))@\(callbackLocation())")
    }
    func requestFinished(_ request: HTTPRequest) {
        log.add("delegate.finished(finished=\(request.isFinished))@\(callbackLocation())")
    }
    func requestFailed(_ request: HTTPRequest) {
        log.add("delegate.failed(\(request.error!.type))@\(callbackLocation())")
    }
}

/// A controller whose methods are set as selectors.
final class SelectorController: @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func started(_ request: HTTPRequest) { log.add("selector.started") }
    func headers(_ request: HTTPRequest, _ headers: HTTPHeaders) { log.add("selector.headers") }
    func done(_ request: HTTPRequest) { log.add("selector.finished") }
    func wentWrong(_ request: HTTPRequest) { log.add("selector.failed") }
}

/// A controller that also implements the protocol, to see that a set selector replaces it.
final class SelectorAndProtocolController: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func requestFinished(_ request: HTTPRequest) { log.add("protocol.finished") }
    func requestDone(_ request: HTTPRequest) { log.add("selector.finished") }
}

final class CallbackTests: XCTestCase {
    private func addBlocks(to request: HTTPRequest, log: EventLog) {
        request.setStartedBlock { _ in log.add("block.started") }
        request.setHeadersReceivedBlock { _, _ in log.add("block.headers") }
        request.setCompletionBlock { _ in log.add("block.finished") }
        request.setFailedBlock { _ in log.add("block.failed") }
    }

    func testThatASynchronousRequestRunsEveryCallbackOnTheMainThreadBeforeReturning() {
        XCTAssertTrue(Thread.isMainThread)
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: Fixture.url(.bytes(100)))
        request.delegate = delegate
        addBlocks(to: request, log: delegate.log)
        request.startSynchronous()
        XCTAssertEqual(
            delegate.log.all,
            [
                "delegate.started@main", "block.started", "delegate.headers(200)@main", "block.headers",
                "delegate.finished(finished=false)@main", "block.finished",
            ])
        XCTAssertTrue(request.isFinished)
        XCTAssertFalse(request.isExecuting)
    }

    func testThatASynchronousRequestOnAnotherThreadCallsBackOnThatThread() {
        let delegate = RecordingDelegate()
        let done = expectation(description: "thread done")
        let request = HTTPRequest(url: Fixture.url(.bytes(100)))
        request.delegate = delegate
        let threads = EventLog()
        request.setStartedBlock { _ in threads.add("started on \(pthread_self())") }
        request.setCompletionBlock { _ in threads.add("finished on \(pthread_self())") }
        let thread = Thread {
            let caller = pthread_self()
            request.startSynchronous()
            threads.add("returned on \(caller)")
            done.fulfill()
        }
        thread.start()
        wait(for: [done], timeout: 10)
        let callerID = threads.all.last!.replacingOccurrences(of: "returned on ", with: "")
        XCTAssertEqual(threads.all, ["started on \(callerID)", "finished on \(callerID)", "returned on \(callerID)"])
        XCTAssertEqual(delegate.log.all.filter { $0.hasSuffix("@main") }, [], "nothing ran on the main thread")
        XCTAssertEqual(delegate.log.all.count, 3)
    }

    func testThatASynchronousRequestInsideAMainQueueBlockDoesNotDeadlock() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: Fixture.url(.bytes(100)))
        request.delegate = delegate
        let done = expectation(description: "main-queue block done")
        DispatchQueue.main.async {
            request.startSynchronous()
            XCTAssertEqual(request.responseStatusCode, 200)
            done.fulfill()
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(delegate.log.all.count, 3)
    }

    func testThatAnAsynchronousRequestCallsBackOnItsCallbackQueueInOrder() {
        let marker = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "callbacks")
        queue.setSpecific(key: marker, value: "callbacks")
        let delegate = RecordingDelegate(marker: marker)
        let request = HTTPRequest(url: Fixture.url(.bytes(100)))
        request.callbackQueue = queue
        request.delegate = delegate
        let done = expectation(description: "finished")
        addBlocks(to: request, log: delegate.log)
        request.setCompletionBlock { _ in
            delegate.log.add("block.finished")
            done.fulfill()
        }
        request.startAsynchronous()
        wait(for: [done], timeout: 10)
        waitUntil { request.isFinished }
        XCTAssertEqual(
            delegate.log.all,
            [
                "delegate.started@callbacks", "block.started", "delegate.headers(200)@callbacks", "block.headers",
                "delegate.finished(finished=false)@callbacks", "block.finished",
            ])
    }

    func testThatAsynchronousCallbacksDefaultToTheMainQueue() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: Fixture.url(.bytes(1)))
        request.delegate = delegate
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(
            delegate.log.all,
            ["delegate.started@main", "delegate.headers(200)@main", "delegate.finished(finished=false)@main"])
    }

    func testThatAFailureCallsFailedExactlyOnceInEveryForm() {
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: Fixture.refusedURL)
        request.delegate = delegate
        addBlocks(to: request, log: delegate.log)
        request.startSynchronous()
        XCTAssertEqual(
            delegate.log.all,
            ["delegate.started@main", "block.started", "delegate.failed(connectionFailure)@main", "block.failed"])
        XCTAssertEqual(request.error?.type, .connectionFailure)
        XCTAssertEqual(request.error?.curlCode, 7)
        XCTAssertTrue(request.error?.description.contains(Fixture.refusedURL.absoluteString) ?? false)
    }

    func testThatSelectorsArePerformedOnTheDelegate() {
        let controller = SelectorController()
        let request = HTTPRequest(url: Fixture.url(.bytes(10)))
        request.delegate = nil
        request.setDidStartSelector(SelectorController.started)
        request.setDidReceiveResponseHeadersSelector(SelectorController.headers)
        request.setDidFinishSelector(SelectorController.done)
        request.setDidFailSelector(SelectorController.wentWrong)
        // Selectors are performed on the delegate: with none, nothing is called.
        request.startSynchronous()
        XCTAssertEqual(controller.log.all, [])

        let failing = HTTPRequest(url: Fixture.refusedURL)
        failing.setDidStartSelector(SelectorController.started)
        failing.setDidFailSelector(SelectorController.wentWrong)
        failing.setDidFinishSelector(SelectorController.done)
        let holder = SelectorDelegateHolder(controller)
        failing.delegate = holder
        failing.startSynchronous()
        XCTAssertEqual(controller.log.all, [], "the delegate is not a SelectorController: nothing is called")
    }

    func testThatSelectorsReplaceTheProtocolMethod() {
        let controller = SelectorAndProtocolController()
        let request = HTTPRequest(url: Fixture.url(.bytes(10)))
        request.delegate = controller
        request.setDidFinishSelector(SelectorAndProtocolController.requestDone)
        request.startSynchronous()
        XCTAssertEqual(controller.log.all, ["selector.finished"])
    }

    func testThatEveryFormRunsInASIOrderForOneRequest() {
        let controller = SelectorEverything()
        let request = HTTPRequest(url: Fixture.url(.bytes(10)))
        request.delegate = controller
        request.setDidStartSelector(SelectorEverything.started)
        request.setDidReceiveResponseHeadersSelector(SelectorEverything.headers)
        request.setDidFinishSelector(SelectorEverything.done)
        addBlocks(to: request, log: controller.log)
        request.startSynchronous()
        XCTAssertEqual(
            controller.log.all,
            [
                "selector.started", "block.started", "selector.headers", "block.headers", "selector.finished",
                "block.finished",
            ])

        let failing = HTTPRequest(url: Fixture.refusedURL)
        let failures = SelectorEverything()
        failing.delegate = failures
        failing.setDidFailSelector(SelectorEverything.wentWrong)
        addBlocks(to: failing, log: failures.log)
        failing.startSynchronous()
        XCTAssertEqual(failures.log.all, ["protocol.started", "block.started", "selector.failed", "block.failed"])
    }

    func testThatASubclassSelectorReceivesTheSubclass() {
        let controller = SubclassController()
        let request = ParsingRequest(url: Fixture.url(.bytes(3)))
        request.delegate = controller
        request.setDidFinishSelector(SubclassController.parsed)
        request.setCompletionBlock { request in controller.log.add("block sees \(request.parsedLength)") }
        request.startSynchronous()
        XCTAssertEqual(controller.log.all, ["selector sees 3", "block sees 3"])
    }

    func testThatIsFinishedComesAfterTheLastCallbackInAQueue() {
        let queue = OperationQueue()
        let log = EventLog()
        let request = HTTPRequest(url: Fixture.url(.bytes(10)))
        request.setCompletionBlock { request in log.add("completion finished=\(request.isFinished)") }
        request.completionBlock = { log.add("operation completionBlock") }
        queue.addOperation(request)
        waitUntil { log.all.count == 2 }
        XCTAssertEqual(log.all, ["completion finished=false", "operation completionBlock"])
        XCTAssertEqual(queue.operationCount, 0)
    }
}

/// A delegate whose type is not the selectors' target type.
final class SelectorDelegateHolder: HTTPRequestDelegate {
    let controller: SelectorController
    init(_ controller: SelectorController) { self.controller = controller }
}

final class SelectorEverything: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func requestStarted(_ request: HTTPRequest) { log.add("protocol.started") }
    func started(_ request: HTTPRequest) { log.add("selector.started") }
    func headers(_ request: HTTPRequest, _ headers: HTTPHeaders) { log.add("selector.headers") }
    func done(_ request: HTTPRequest) { log.add("selector.finished") }
    func wentWrong(_ request: HTTPRequest) { log.add("selector.failed") }
}

/// A subclass per endpoint, as users write them.
final class ParsingRequest: HTTPRequest, @unchecked Sendable {
    // @unchecked Sendable: `parsedLength` is written once, on the callback thread, before any
    // callback that reads it.
    private(set) var parsedLength = 0

    override func requestFinished() {
        parsedLength = responseData()?.count ?? -1
        super.requestFinished()
    }
}

final class SubclassController: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func parsed(_ request: ParsingRequest) { log.add("selector sees \(request.parsedLength)") }
}
