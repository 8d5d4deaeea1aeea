import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// One bandwidth budget shared by all running requests.
final class BandwidthTests: XCTestCase {
    override func tearDown() {
        HTTPRequest.maxBandwidthPerSecond = 0
        super.tearDown()
    }

    func testThatFourDownloadsShareTwoMegabytesPerSecond() throws {
        try skipIfQuickRun()
        let size = 8 * 1024 * 1024
        HTTPRequest.maxBandwidthPerSecond = 2_000_000
        let queue = NetworkQueue()
        let requests = (0..<4).map { _ in HTTPRequest(url: Fixture.url(.bytes(size))) }
        queue.addOperations(requests, waitUntilFinished: false)
        let averages = Locked<[Int64]>([])
        let sampler = DispatchSource.makeTimerSource(queue: .global())
        sampler.schedule(deadline: .now() + 2, repeating: 1)
        sampler.setEventHandler { averages.withLock { $0.append(HTTPRequest.averageBandwidthUsedPerSecond) } }
        sampler.resume()
        let started = Date()
        queue.go()
        waitUntilAllFinished(queue)
        sampler.cancel()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertTrue(requests.allSatisfy { $0.error == nil && $0.responseData()?.count == size })
        // 32 MiB at 2 MB/s with at most one second's burst: at least ~15.8 s.
        XCTAssertGreaterThanOrEqual(elapsed, 14, "the budget held")
        XCTAssertLessThanOrEqual(elapsed, 60)
        let seen = averages.current
        XCTAssertTrue(seen.contains { $0 > 0 }, "averageBandwidthUsedPerSecond moved: \(seen)")
        XCTAssertTrue(seen.allSatisfy { $0 <= 2_600_000 }, "and stayed near the budget: \(seen)")
        print("bandwidth: 4 x 8 MiB at 2 MB/s took \(String(format: "%.1f", elapsed)) s, averages \(seen)")
    }

    func testThatTheAverageStaysNearAThrottledBudgetAndFallsWhenTrafficStops() {
        // A quiet second first, so the seconds of earlier tests are out of the average.
        waitUntil(timeout: 10) { HTTPRequest.averageBandwidthUsedPerSecond == 0 }
        let budget: Int64 = 250_000
        HTTPRequest.maxBandwidthPerSecond = budget
        // About three seconds at the budget, after its one second's burst.
        let request = HTTPRequest(url: Fixture.url(.bytes(1_000_000)))
        let started = Date()
        request.startAsynchronous()
        var samples: [Int64] = []
        let deadline = Date(timeIntervalSinceNow: 30)
        while !request.isFinished, Date() < deadline {
            spinMainQueue(for: 0.25)
            // From the second whole second on: the average covers whole seconds only.
            if Date().timeIntervalSince(started) >= 2.2, !request.isFinished {
                samples.append(HTTPRequest.averageBandwidthUsedPerSecond)
            }
        }
        XCTAssertTrue(request.isFinished)
        XCTAssertNil(request.error)
        XCTAssertFalse(samples.isEmpty)
        let nearBudget = samples.allSatisfy { $0 >= budget / 2 && $0 <= budget * 8 / 5 }
        XCTAssertTrue(nearBudget, "near the budget while it runs: \(samples)")
        HTTPRequest.maxBandwidthPerSecond = 0
        let stopped = Date()
        waitUntil(timeout: 4) { HTTPRequest.averageBandwidthUsedPerSecond == 0 }
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 3, "the average fell once traffic stopped")
    }

    func testThatAnUploadIsThrottledToo() throws {
        let body = Data(count: 600_000)
        HTTPRequest.maxBandwidthPerSecond = 300_000
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.postBody = body
        let started = Date()
        request.startSynchronous()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertNil(request.error)
        // 600 kB up (and its echo down, ~800 kB) at 300 kB/s with a 1 s burst: well over a second.
        XCTAssertGreaterThan(elapsed, 2)
    }

    func testThatTransfersOfVeryDifferentSizesEachGetTheirFirst64KiBWithinASecond() throws {
        HTTPRequest.maxBandwidthPerSecond = 2 * 1024 * 1024
        let sizes = [64 * 1024 * 1024, 8 * 1024 * 1024, 1024 * 1024, 100 * 1024]
        let queue = NetworkQueue()
        // The largest first, as in a list a user types: it must not take the small ones' turns.
        let requests = sizes.map { HTTPRequest(url: Fixture.url(.bytes($0))) }
        queue.addOperations(requests, waitUntilFinished: false)
        let started = Date()
        queue.go()
        var reached: [TimeInterval?] = Array(repeating: nil, count: requests.count)
        while reached.contains(where: { $0 == nil }), Date().timeIntervalSince(started) < 3 {
            for (index, request) in requests.enumerated() where reached[index] == nil {
                if request.totalBytesRead >= 64 * 1024 { reached[index] = Date().timeIntervalSince(started) }
            }
            usleep(5_000)
        }
        queue.cancelAllOperations()
        waitUntilAllFinished(queue)
        for (size, seconds) in zip(sizes, reached) {
            XCTAssertLessThan(seconds ?? 99, 1, "the \(size)-byte download's first 64 KiB, in seconds: \(reached)")
        }
    }
}
