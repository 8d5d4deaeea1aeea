import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// Delegates deallocated, or replaced by others, while their requests are mid-body.
final class LoadDelegateTests: XCTestCase {
    /// Hears one request; records what it heard in the shared `log` under its own name.
    private final class Listener: HTTPRequestDelegate, ProgressDelegate, @unchecked Sendable {
        // @unchecked Sendable: `log` is locked; `name` is set once.
        let name: String
        let log: EventLog
        init(_ name: String, log: EventLog) {
            self.name = name
            self.log = log
        }
        func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
            log.add("\(name) headers")
        }
        func requestFinished(_ request: HTTPRequest) { log.add("\(name) finished") }
        func requestFailed(_ request: HTTPRequest) { log.add("\(name) failed") }
        func setProgress(_ progress: Double) { if progress == 1 { log.add("\(name) progress 1") } }
        deinit { log.add("\(name) deinit") }
    }

    func testThatDelegatesReleasedOrReplacedMidRequestAreNeverCalledAfterAndTheNewOnesHearTheRest() throws {
        try skipIfQuickRun()
        let count = 200
        let fdsBefore = LoadProbe.baselineDescriptors()
        let started = Date()
        let log = EventLog()
        let callbacks = DispatchQueue(label: "load-delegates")
        var first: [Listener?] = (0..<count).map { Listener("A\($0)", log: log) }
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = count
        queue.shouldCancelAllRequestsOnFailure = false
        let requests = (0..<count).map { tag -> HTTPRequest in
            // About 1.2 s of body, a byte every 8 ms: long enough to swap delegates in the middle.
            // Under a sanitizer 6 s (40 ms): 200 heads took longer than 1.2 s under TSan, so the
            // first requests had finished before their delegates changed.
            let interval = Sanitizer.isActive ? 40 : 8
            let request = HTTPRequest(url: Fixture.url(.trickle(150, intervalMilliseconds: interval)))
            request.tag = tag
            request.callbackQueue = callbacks
            request.delegate = first[tag]
            request.downloadProgressDelegate = first[tag]
            queue.addOperation(request)
            return request
        }
        queue.go()
        waitUntil(timeout: 30, message: "every request has its head") {
            log.all.filter { $0.hasSuffix(" headers") }.count == count
        }
        let midway = requests.filter { !$0.isFinished }.count
        // Even tags: the delegate goes away. Odd tags: another takes its place.
        let second = (0..<count).map { $0 % 2 == 1 ? Listener("B\($0)", log: log) : nil }
        weak var released: Listener?
        for tag in 0..<count {
            if tag % 2 == 1 {
                requests[tag].delegate = second[tag]
                requests[tag].downloadProgressDelegate = second[tag]
            }
            released = first[tag]
            first[tag] = nil
            XCTAssertNil(released, "A\(tag) is deallocated at once: the request does not keep it")
        }
        waitUntilAllFinished(queue, timeout: 60)
        spinMainQueue(for: 0.3)
        withExtendedLifetime(second) {}
        XCTAssertGreaterThan(midway, count * 3 / 4, "most requests were mid-body when their delegate changed")
        XCTAssertTrue(requests.allSatisfy { $0.error == nil }, "\(requests.compactMap(\.error).prefix(3))")
        let events = log.all
        for tag in 0..<count {
            let mine = events.filter { $0.hasPrefix("A\(tag) ") || $0.hasPrefix("B\(tag) ") }
            let afterDeinit = mine.drop { $0 != "A\(tag) deinit" }.dropFirst().filter { $0.hasPrefix("A") }
            XCTAssertEqual(Array(afterDeinit), [], "nothing reaches A\(tag) once it is gone")
            XCTAssertFalse(mine.contains("A\(tag) finished"), "A\(tag) left before the end")
            if tag % 2 == 1 {
                XCTAssertEqual(mine.filter { $0 == "B\(tag) finished" }.count, 1, "B\(tag) hears the end: \(mine)")
                XCTAssertTrue(mine.contains("B\(tag) progress 1"), "B\(tag) hears the progress: \(mine)")
            } else {
                XCTAssertFalse(mine.contains { $0.hasPrefix("B") }, "\(mine)")
            }
        }
        let fdsAfter = waitForDescriptors(backTo: fdsBefore)
        LoadProbe.report(
            "delegates released/replaced (\(midway) mid-body)", requests: count, concurrency: count,
            fdsBefore: fdsBefore, fdsAfter: fdsAfter, started: started)
    }
}
