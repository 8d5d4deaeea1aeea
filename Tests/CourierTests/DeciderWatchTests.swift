import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// Requests waiting for a decider that may go away: one watcher looks for all of them, and only
/// while some wait.
final class DeciderWatchTests: ServerTestCase {
    /// Asked, and never answers.
    private final class Forgetful: HTTPRequestRedirectDelegate, @unchecked Sendable {
        // @unchecked Sendable: `asked` is locked.
        let asked = Locked(0)
        func request(_ request: HTTPRequest, willRedirectTo url: URL) { asked.withLock { $0 += 1 } }
    }

    func testThatRequestsWaitingForADeciderShareOneWatcherThatStopsWhenNoneWait() {
        let count = 10
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = count
        var delegate: Forgetful? = Forgetful()
        let asked = delegate!.asked
        let requests = (0..<count).map { _ in HTTPRequest(url: server.url(.redirect(302, to: "/bytes/7"))) }
        for request in requests {
            request.delegate = delegate
            queue.addOperation(request)
        }
        queue.go()
        waitUntil { asked.withLock { $0 } == count }
        waitUntil(message: "all \(count) are watched by the one watcher") { DeciderWatch.shared.state.count == count }
        XCTAssertTrue(DeciderWatch.shared.state.isScheduled)
        spinMainQueue(for: 0.6)
        XCTAssertEqual(requests.filter(\.isFinished).count, 0, "they wait while their delegate is there")
        XCTAssertEqual(DeciderWatch.shared.state.count, count, "still watched, once each")

        delegate = nil
        let released = Date()
        waitUntil(timeout: 5) { requests.allSatisfy(\.isFinished) }
        XCTAssertLessThan(Date().timeIntervalSince(released), 1, "they went on within a second")
        XCTAssertEqual(requests.compactMap { $0.responseData()?.count }, Array(repeating: 7, count: count))
        waitUntil(timeout: 2, message: "the watcher stops when nobody waits") {
            DeciderWatch.shared.state == (0, false)
        }
    }
}
