import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// `allFinished()` and `finishedRequests`, from a Task, with callbacks on a queue of the test's.
final class NetworkQueueAsyncTests: XCTestCase {
    private func makeQueue(_ routes: [Route]) -> NetworkQueue {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 16
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = DispatchQueue(label: "async-queue-callbacks")
        for route in routes { queue.addOperation(HTTPRequest(url: Fixture.url(route))) }
        return queue
    }

    /// The stream starts the queue once it listens, so none of the 1,000 can end unseen (a
    /// first version left `go()` to the caller, and a request that ended before the stream was
    /// made was missed: 999 of 1,000 on CI).
    func testThatFinishedRequestsStreamsEachOfAThousandRequestsExactlyOnce() async throws {
        let queue = makeQueue((0..<1_000).map { .bytes(100 + $0 % 7) })
        var seen: [ObjectIdentifier: Int] = [:]
        var failures = 0
        for await request in queue.finishedRequests {
            seen[ObjectIdentifier(request), default: 0] += 1
            if request.error != nil { failures += 1 }
            XCTAssertTrue(request.complete, "its callbacks have run")
        }
        XCTAssertEqual(seen.count, 1_000)
        XCTAssertEqual(seen.values.filter { $0 != 1 }.count, 0, "each exactly once")
        XCTAssertEqual(failures, 0)
    }

    func testThatAllFinishedStartsTheQueueAndReturnsWhenItIsEmpty() async throws {
        let queue = makeQueue((0..<50).map { .bytes($0 * 10) })
        XCTAssertTrue(queue.isSuspended)
        await queue.allFinished()
        XCTAssertFalse(queue.isSuspended, "go() was called")
        XCTAssertEqual(queue.operationCount, 0)
        XCTAssertEqual(queue.requestsCount, 0)
    }

    func testThatAStreamMadeBeforeGoSeesEveryRequest() async throws {
        let queue = makeQueue((0..<200).map { .bytes(10 + $0) })
        let finished = queue.finishedRequests
        queue.go()
        var count = 0
        for await _ in finished { count += 1 }
        XCTAssertEqual(count, 200)
    }

    func testThatAllFinishedOnAnEmptyQueueReturnsAtOnce() async {
        let queue = NetworkQueue()
        await queue.allFinished()
        XCTAssertEqual(queue.operationCount, 0)
        var streamed = 0
        for await _ in queue.finishedRequests { streamed += 1 }
        XCTAssertEqual(streamed, 0, "a going queue with nothing in it ends its stream at once")
    }

    func testThatCancellingTheAwaitingTaskCancelsTheQueuesRequests() async throws {
        let queue = makeQueue(Array(repeating: .stall, count: 8))
        let requests = queue.operations.compactMap { $0 as? HTTPRequest }
        let waiting = Task { await queue.allFinished() }
        try await Task.sleep(nanoseconds: 300_000_000)
        waiting.cancel()
        await waiting.value
        XCTAssertEqual(queue.operationCount, 0)
        XCTAssertEqual(requests.count, 8)
        XCTAssertTrue(requests.allSatisfy { $0.error?.type == .requestCancelled }, "\(requests.map(\.error))")
    }

    func testThatCancellingTheTaskReadingTheStreamCancelsTheQueuesRequests() async throws {
        let queue = makeQueue(Array(repeating: .stall, count: 4))
        let requests = queue.operations.compactMap { $0 as? HTTPRequest }
        let reading = Task {
            var count = 0
            for await _ in queue.finishedRequests { count += 1 }
            return count
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        reading.cancel()
        _ = await reading.value
        await queue.allFinished()
        XCTAssertTrue(requests.allSatisfy { $0.error?.type == .requestCancelled }, "\(requests.map(\.error))")
    }

    func testThatLeavingTheStreamEarlyCancelsNothing() async throws {
        let queue = makeQueue((0..<20).map { .bytes(100 + $0) })
        for await _ in queue.finishedRequests { break }
        await queue.allFinished()
        let failed = queue.operations.count
        XCTAssertEqual(failed, 0)
    }
}
