import Courier
import CourierTestServer
import XCTest

// No @testable import: this file compiles only against what Courier lets other modules override.

/// An ASINetworkQueue-style subclass: it overrides the queue's methods, notes each call and
/// passes it on.
final class RecordingQueue: NetworkQueue, @unchecked Sendable {
    // @unchecked Sendable: `calls` is locked.
    let calls = EventLog()

    override func go() {
        calls.add("go")
        super.go()
    }

    override func reset() {
        calls.add("reset")
        super.reset()
    }

    override func addOperation(_ operation: Operation) {
        calls.add("addOperation")
        super.addOperation(operation)
    }

    override func addFirst(_ request: HTTPRequest) {
        calls.add("addFirst")
        super.addFirst(request)
    }

    override func cancelAllOperations() {
        calls.add("cancelAllOperations")
        super.cancelAllOperations()
    }
}

final class QueueSubclassTests: XCTestCase {
    func testThatASubclassOverridesTheQueuesMethodsAndTheQueueStillRuns() {
        let queue = RecordingQueue()
        let first = HTTPRequest(url: Fixture.url(.bytes(3)))
        let second = HTTPRequest(url: Fixture.url(.bytes(4)))
        queue.addOperation(first)
        queue.addFirst(second)
        // ASI's setSuspended:NO is go: the override hears of it too.
        queue.isSuspended = false
        waitUntilAllFinished(queue)
        XCTAssertNil(first.error)
        XCTAssertNil(second.error)
        queue.cancelAllOperations()
        queue.reset()
        XCTAssertEqual(
            queue.calls.all,
            ["addOperation", "addFirst", "go", "cancelAllOperations", "reset", "cancelAllOperations"])
    }
}
