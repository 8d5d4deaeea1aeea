import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Bugs found while writing the guides, each pinned down.
final class RegressionTests: ServerTestCase {
    func testThatRequestsCancelledBeforeTheyWereQueuedGiveTheirSlotsBack() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1
        let cancelled = (0..<4).map { _ in HTTPRequest(url: server.url(.bytes(1))) }
        for request in cancelled {
            request.cancel()
            queue.addOperation(request)
        }
        let fine = HTTPRequest(url: server.url(.bytes(5)))
        queue.addOperation(fine)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertTrue(cancelled.allSatisfy(\.isFinished))
        XCTAssertEqual(fine.responseStatusCode, 200, "the slot came back for the request behind them")
        XCTAssertEqual(server.requestsReceived, 1)
    }

    func testThatFreshStreamsAreNeverMistakenForUsedOnes() {
        for _ in 0..<60 {
            let request = HTTPRequest(url: server.url(.redirect(307, to: "/echo")))
            request.setPostBodyStream(length: 5) { InputStream(data: Data("fresh".utf8)) }
            request.startSynchronous()
            XCTAssertNil(request.error)
            if request.error != nil { return }
        }
    }

    func testThatAProbeNeitherParsesNorTouchesADownload() throws {
        let directory = try makeTemporaryDirectory("courier-probe")
        let destination = directory.appendingPathComponent("file.bin").path
        try TestServer.deterministicBytes(count: 3000).write(to: URL(fileURLWithPath: destination + ".download"))

        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.maxConcurrentOperationCount = 1
        let parsed = HTTPRequest(url: server.url(.bytes(100)))
        parsed.parsingBlock = { data in
            struct Empty: Error {}
            guard !data.isEmpty else { throw Empty() }
            return data.count
        }
        let resumed = HTTPRequest(url: server.url(.bytes(10_000)))
        resumed.downloadDestinationPath = destination
        resumed.allowResumeForFileDownloads = true
        queue.addOperation(parsed)
        queue.addOperation(resumed)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertNil(parsed.error, "the probe's empty body was not parsed")
        XCTAssertEqual(parsed.parsedResult as? Int, 100)
        XCTAssertNil(resumed.error)
        let requests = server.recordedRequests
        XCTAssertEqual(requests.map(\.method), ["HEAD", "HEAD", "GET", "GET"])
        XCTAssertNil(requests[1].header("Range"), "the probe did not resume")
        XCTAssertEqual(requests[3].header("Range"), "bytes=3000-", "the GET did")
        XCTAssertEqual(FileManager.default.contents(atPath: destination), TestServer.deterministicBytes(count: 10_000))
    }

    func testThatClearingOneQueuedRequestDoesNotCancelTheRest() {
        let queue = NetworkQueue()
        let cleared = HTTPRequest(url: server.url(.stall))
        cleared.timeOutSeconds = 30
        let others = [HTTPRequest(url: server.url(.delay(milliseconds: 300))), HTTPRequest(url: server.url(.bytes(3)))]
        queue.addOperation(cleared)
        for request in others { queue.addOperation(request) }
        queue.go()
        waitUntil { self.server.requestsReceived >= 2 }
        cleared.clearDelegatesAndCancel()
        waitUntilAllFinished(queue)
        XCTAssertEqual(others.map(\.responseStatusCode), [200, 200])
        XCTAssertTrue(others.allSatisfy { $0.error == nil })
    }

    func testThatARedirectSelectorForAnotherDelegateTypeDoesNotStallTheRequest() {
        final class Other: HTTPRequestDelegate {}
        final class Decider: @unchecked Sendable {
            func decide(_ request: HTTPRequest, _ url: URL) { request.redirect(to: url) }
        }
        let other = Other()
        let request = HTTPRequest(url: server.url(.redirect(302, to: "/bytes/4")))
        request.delegate = other
        request.setWillRedirectSelector(Decider.decide)
        request.timeOutSeconds = 2
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: 4))
    }
}
