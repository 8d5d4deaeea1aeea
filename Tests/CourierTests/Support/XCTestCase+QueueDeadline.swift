import Foundation
import XCTest

extension XCTestCase {
    /// `queue.waitUntilAllOperationsAreFinished()` (or the `wait` given), with a deadline: if the
    /// queue's requests have not all finished `timeout` seconds on, they are cancelled, which
    /// finishes them and so ends the wait, and the test fails instead of hanging the run.
    /// Call it on the test's (main) thread: a `NetworkQueue` runs the main queue while it waits.
    func waitUntilAllFinished(
        _ queue: OperationQueue, timeout: TimeInterval = 60, file: StaticString = #filePath, line: UInt = #line,
        _ wait: (() -> Void)? = nil
    ) {
        let deadline = QueueDeadline()
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
            if deadline.expire() { queue.cancelAllOperations() }
        }
        if let wait { wait() } else { queue.waitUntilAllOperationsAreFinished() }
        if !deadline.finish() {
            XCTFail(
                "the queue's requests had not finished after \(timeout) s; they were cancelled", file: file,
                line: line)
        }
    }
}

/// Whichever comes first: the wait returning or the deadline passing.
private final class QueueDeadline: @unchecked Sendable {
    // @unchecked Sendable: `state` is only touched under `lock`.
    private let lock = NSLock()
    private var state: Bool?  // true: finished in time; false: expired

    /// True if the deadline came first.
    func expire() -> Bool { settle(false) == false }

    /// True if the wait returned first.
    func finish() -> Bool { settle(true) }

    private func settle(_ value: Bool) -> Bool {
        lock.withLock {
            if state == nil { state = value }
            return state!
        }
    }
}
