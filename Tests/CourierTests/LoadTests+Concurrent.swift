import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// 1,000 transfers in flight at once, to memory and to disk, against the fixture server.
final class LoadConcurrentTests: XCTestCase {
    private static let count = 1_000
    /// Big enough that the transfers overlap (each takes several reads), small enough for 2 cores.
    private static let size = 64 * 1024

    override func setUpWithError() throws {
        try skipIfQuickRun()
        // The client's sockets, the fixture server's ends of them (it is in this process), and
        // a file each for the disk test.
        try LoadProbe.raiseDescriptorLimit(needing: 3 * Self.count + 256)
    }

    func testThatAThousandConcurrentTransfersToMemoryAreByteExact() throws {
        let expected = TestServer.deterministicBytes(count: Self.size)
        let bad = EventLog()
        try runThousand(name: "1,000 concurrent to memory") { request, _ in
            request.setCompletionBlock { request in
                if request.responseData() != expected { bad.add("\(request.tag): wrong body") }
            }
        }
        XCTAssertEqual(bad.all, [])
    }

    func testThatAThousandConcurrentTransfersToDiskAreByteExact() throws {
        let directory = try makeTemporaryDirectory("courier-load-disk")
        let expected = TestServer.deterministicBytes(count: Self.size)
        try runThousand(name: "1,000 concurrent to disk") { request, tag in
            request.downloadDestinationPath = directory.appendingPathComponent("\(tag).bin").path
        }
        var wrong: [Int] = []
        for tag in 0..<Self.count {
            let data = FileManager.default.contents(atPath: directory.appendingPathComponent("\(tag).bin").path)
            if data != expected { wrong.append(tag) }
        }
        XCTAssertEqual(wrong, [], "files byte for byte")
    }

    private func runThousand(name: String, configure: (HTTPRequest, Int) -> Void) throws {
        let fdsBefore = LoadProbe.baselineDescriptors()
        let started = Date()
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = Self.count
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = DispatchQueue(label: "load-1000")
        let ledger = EndingLedger(count: Self.count)
        queue.delegate = ledger
        queue.setRequestDidFinishSelector(EndingLedger.requestFinished)
        queue.setRequestDidFailSelector(EndingLedger.requestFailed)
        queue.setQueueDidFinishSelector(EndingLedger.queueFinished)
        let peak = Locked(0)
        for tag in 0..<Self.count {
            let request = HTTPRequest(url: Fixture.url(.bytes(Self.size)))
            request.tag = tag
            request.allowCompressedResponse = false
            request.timeOutSeconds = 120
            configure(request, tag)
            queue.addOperation(request)
        }
        queue.go()
        waitUntil(timeout: 180, message: "1,000 transfers ended") {
            peak.withLock { $0 = max($0, queue.runningRequestsCount) }
            return ledger.queueDidFinishCount > 0
        }
        waitUntilAllFinished(queue, timeout: 30)
        spinMainQueue(for: 0.2)
        XCTAssertEqual(ledger.failures, [:])
        XCTAssertEqual(ledger.tagsNotEndedOnce, [], "every request ends exactly once")
        XCTAssertEqual(ledger.queueDidFinishCount, 1)
        XCTAssertGreaterThan(peak.current, Self.count / 2, "most of them ran at once")
        let fdsAfter = waitForDescriptors(backTo: fdsBefore)
        LoadProbe.report(
            name + " (peak running \(peak.current))", requests: Self.count, concurrency: Self.count,
            fdsBefore: fdsBefore, fdsAfter: fdsAfter, started: started)
    }
}
