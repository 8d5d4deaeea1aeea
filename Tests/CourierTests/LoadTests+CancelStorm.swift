import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// Half of 5,000 requests cancelled at random moments from several threads while the queue runs.
final class LoadCancelStormTests: XCTestCase {
    func testThatACancelStormEndsEveryRequestOnceAndLeaksNoEasyHandle() throws {
        try skipIfQuickRun()
        let count = 5_000
        let fdsBefore = LoadProbe.baselineDescriptors()
        let started = Date()
        var generator = SeededGenerator(seed: 21)
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 32
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = DispatchQueue(label: "load-cancel-storm")
        let ledger = EndingLedger(count: count)
        queue.delegate = ledger
        queue.setRequestDidFinishSelector(EndingLedger.requestFinished)
        queue.setRequestDidFailSelector(EndingLedger.requestFailed)
        queue.setQueueDidFinishSelector(EndingLedger.queueFinished)
        let requests = (0..<count).map { tag -> HTTPRequest in
            // Some wait for their answer, some are mid-body, some are done before they are cancelled.
            let route: Route =
                tag % 2 == 0
                ? .delay(milliseconds: Int.random(in: 0...100, using: &generator))
                : .bytes(Int.random(in: 1...128 * 1024, using: &generator))
            let request = HTTPRequest(url: Fixture.url(route))
            request.tag = tag
            request.timeOutSeconds = 60
            queue.addOperation(request)
            return request
        }
        // Half of them, each at its own moment within the first 3 s (the queue takes about 5 s),
        // spread over 8 threads.
        let doomed = Array((0..<count).shuffled(using: &generator).prefix(count / 2))
        let moments = doomed.map { _ in Double.random(in: 0..<3, using: &generator) }
        let cancelledTags = Set(doomed)
        // Cancels that came while their request still ran or waited (the rest came too late).
        let timely = Locked(0)
        queue.go()
        let go = Date()
        DispatchQueue.global().async {
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                let mine = stride(from: thread, to: doomed.count, by: 8).sorted { moments[$0] < moments[$1] }
                for index in mine {
                    let wait = moments[index] - Date().timeIntervalSince(go)
                    if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
                    let request = requests[doomed[index]]
                    if !request.isFinished { timely.withLock { $0 += 1 } }
                    request.cancel()
                }
            }
        }
        // A queue whose slot went to a request cancelled as it was given one never started the
        // rest: operationCount stayed near 1,000 with nothing running.
        waitUntil(timeout: 60, message: "no operation stuck: operationCount \(queue.operationCount)") {
            queue.operationCount == 0 && ledger.queueDidFinishCount > 0
        }
        // A stuck queue must not outlive the test with its requests.
        if queue.operationCount > 0 { queue.cancelAllOperations() }
        spinMainQueue(for: 0.2)
        XCTAssertEqual(ledger.tagsNotEndedOnce, [], "every request ends exactly once")
        XCTAssertEqual(ledger.queueDidFinishCount, 1)
        let failures = ledger.failures
        XCTAssertEqual(Set(failures.keys), failures.isEmpty ? [] : [.requestCancelled], "\(failures)")
        XCTAssertTrue(ledger.failedTags.isSubset(of: cancelledTags), "only cancelled requests fail")
        let cancelled = failures[.requestCancelled] ?? 0
        XCTAssertGreaterThan(timely.current, count / 8, "many cancels came while their request was unfinished")
        // A cancel that races its request's own end may lose; nearly all must win.
        XCTAssertGreaterThan(cancelled, timely.current * 9 / 10, "cancels that came in time cancelled")
        let census = try XCTUnwrap(Engine.shared.handleCensus(), "the engine answers")
        XCTAssertEqual(census.inTransfers, 0, "no transfer still holds a handle: \(census)")
        XCTAssertLessThanOrEqual(census.pooled, Engine.maxIdleHandles, "only the pool's handles are left: \(census)")
        XCTAssertGreaterThanOrEqual(census.pooled, 0, "\(census)")
        let fdsAfter = waitForDescriptors(backTo: fdsBefore)
        LoadProbe.report(
            "cancel storm (\(timely.current) cancels in time, \(cancelled) cancelled, handles \(census))",
            requests: count,
            concurrency: 32, fdsBefore: fdsBefore, fdsAfter: fdsAfter, started: started)
    }
}

/// A small deterministic generator (SplitMix64), so a failing storm can be run again the same way.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
