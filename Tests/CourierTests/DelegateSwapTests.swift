import Foundation
import XCTest

@testable import Courier

/// Delegates swapped from another thread while requests run.
final class DelegateSwapTests: XCTestCase {
    private final class CountingDelegate: HTTPRequestDelegate, ProgressDelegate, @unchecked Sendable {
        // @unchecked Sendable: `ended` is locked; the rest is set before it is shared.
        let ended: Locked<[Int]>
        init(ended: Locked<[Int]>) { self.ended = ended }
        func requestFinished(_ request: HTTPRequest) { ended.withLock { $0.append(request.tag) } }
        func requestFailed(_ request: HTTPRequest) { ended.withLock { $0.append(-request.tag - 1) } }
        func setProgress(_ progress: Double) {}
    }

    func testThatSwappingDelegatesWhileThirtyRequestsRunNeverCrashesHangsOrCallsTwice() {
        let ended = Locked<[Int]>([])
        let requests = (0..<30).map { tag -> HTTPRequest in
            let request = HTTPRequest(url: Fixture.url(.trickle(60, intervalMilliseconds: 5)))
            request.tag = tag
            request.callbackQueue = DispatchQueue(label: "swap-\(tag)")
            return request
        }
        let stop = Locked(false)
        let swapper = Thread {
            // Bounded: stops when told or after 20 s.
            let deadline = Date(timeIntervalSinceNow: 20)
            var keep: [CountingDelegate] = []
            while !stop.withLock({ $0 }), Date() < deadline {
                for request in requests {
                    let delegate = CountingDelegate(ended: ended)
                    request.delegate = delegate
                    request.downloadProgressDelegate = delegate
                    keep.append(delegate)
                }
                // The old ones go: a request must never reach one of them once released.
                if keep.count > 90 { keep.removeFirst(60) }
            }
            // The last delegates stay until every request has ended.
            withExtendedLifetime(keep) { while !requests.allSatisfy(\.isFinished), Date() < deadline { usleep(1000) } }
        }
        swapper.start()
        for request in requests { request.startAsynchronous() }
        waitUntil(timeout: 20) { requests.allSatisfy(\.isFinished) }
        stop.withLock { $0 = true }
        XCTAssertTrue(requests.allSatisfy { $0.error == nil }, "\(requests.compactMap(\.error))")
        let calls = ended.withLock { $0 }
        XCTAssertEqual(Set(calls).count, calls.count, "no request ended twice")
        XCTAssertTrue(calls.allSatisfy { $0 >= 0 }, "no request failed")
    }
}
