import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Counts a queue's request and queue callbacks.
final class FaultQueueController: @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    func failed(_ request: HTTPRequest) { log.add("failed(\(request.tag):\(request.error!.type))") }
    func finished(_ request: HTTPRequest) { log.add("finished(\(request.tag))") }
    func queueDone(_ queue: NetworkQueue) { log.add("queueDidFinish") }
}

/// Faults through a NetworkQueue: each request's failure selector once, the queue's end once.
extension FaultTests {
    func testThatFaultsInAQueueFailEachRequestOnceAndFinishTheQueueOnce() throws {
        let directory = try makeTemporaryDirectory("courier-queue-faults")
        let faults: [(URL, NetworkErrorType)] = [
            (Fixture.refusedURL, .connectionFailure),
            (server.url(.reset), .connectionFailure),
            (server.url(.dropMidHeaders), .connectionFailure),
            (server.url(.dropMidBody(100_000)), .connectionFailure),
            (server.url(.dropMidChunked(100_000)), .connectionFailure),
            (server.url(.stall), .requestTimedOut),
            (server.url(.verbatim("HTTP/1.1 abc OK\r\n\r\n")), .connectionFailure),
            (server.url(.hugeHeader(1 << 20)), .connectionFailure),
            (server.url(.endlessInformational), .connectionFailure),
            (server.url(.redirectLoop), .tooMuchRedirection),
        ]
        let queue = NetworkQueue()
        queue.shouldCancelAllRequestsOnFailure = false
        let controller = FaultQueueController()
        queue.delegate = controller
        queue.setRequestDidFailSelector(FaultQueueController.failed)
        queue.setRequestDidFinishSelector(FaultQueueController.finished)
        queue.setQueueDidFinishSelector(FaultQueueController.queueDone)
        var destinations: [String] = []
        for (tag, (url, _)) in faults.enumerated() {
            let request = HTTPRequest(url: url)
            request.tag = tag
            request.timeOutSeconds = 1
            let destination = directory.appendingPathComponent("body-\(tag).bin").path
            request.downloadDestinationPath = destination
            destinations.append(destination)
            queue.addOperation(request)
        }
        queue.go()
        waitUntilAllFinished(queue, timeout: 20)
        spinMainQueue(for: Self.grace)
        let expected = faults.enumerated().map { "failed(\($0.offset):\($0.element.1))" }
        XCTAssertEqual(controller.log.all.filter { $0 != "queueDidFinish" }.sorted(), expected.sorted())
        XCTAssertEqual(controller.log.all.filter { $0 == "queueDidFinish" }.count, 1, controller.log.all.description)
        XCTAssertEqual(controller.log.all.last, "queueDidFinish", "the queue's end comes after every request's")
        for destination in destinations {
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination), destination)
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination + ".download"), destination)
        }
    }
}
