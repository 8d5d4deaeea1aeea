import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

final class UnreachableController: @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()
    /// Each attempt's start, by tag, in the order the queue began them.
    let starts = EventLog()
    func started(_ request: HTTPRequest) { starts.add("\(request.tag)") }
    func unreachable(_ request: HTTPRequest) { log.add("unreachable(\(request.tag))") }
    func failed(_ request: HTTPRequest) { log.add("failed(\(request.tag))") }
    func finished(_ request: HTTPRequest) { log.add("finished(\(request.tag))") }
}

/// Reachability, and a queue that holds requests while its host is gone (ABRequestManager).
final class ReachabilityTests: XCTestCase {
    func testThatAListeningPortIsReachableAndAClosedOneIsNot() throws {
        let server = try TestServer()
        let port = server.port
        XCTAssertTrue(Reachability(host: "127.0.0.1", port: port).isReachable)
        server.stop()
        XCTAssertFalse(Reachability(host: "127.0.0.1", port: port).isReachable)
    }

    func testThatMonitoringReportsTheFirstAnswerAndEachChange() throws {
        let port = try XCTUnwrap(Fixture.refusedURL.port)
        let reachability = Reachability(host: "127.0.0.1", port: port)
        let answers = EventLog()
        reachability.startMonitoring(interval: 0.1) { answers.add($0 ? "up" : "down") }
        defer { reachability.stopMonitoring() }
        waitUntil { answers.all == ["down"] }
        let server = try TestServer(port: port)
        defer { server.stop() }
        waitUntil { answers.all == ["down", "up"] }
        server.stop()
        waitUntil { answers.all == ["down", "up", "down"] }
    }

    /// Runs alone: it stops the server and starts it again on the same port.
    func testThatHeldRequestsRunAgainWhenTheHostComesBack() throws {
        var server = try TestServer()
        let port = server.port
        server.stop()
        let queue = NetworkQueue()
        queue.reachabilityHost = "127.0.0.1"
        queue.maxConcurrentOperationCount = 2
        let controller = UnreachableController()
        queue.delegate = controller
        queue.setRequestDidFinishSelector(UnreachableController.finished)
        queue.setRequestDidFailSelector(UnreachableController.failed)
        queue.setRequestDidStartSelector(UnreachableController.started)
        let requests = (1...4).map { tag -> HTTPRequest in
            let request = HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/bytes/\(tag * 100)")!)
            request.tag = tag
            return request
        }
        queue.addOperations(requests, waitUntilFinished: false)
        queue.go()
        // Both running requests fail to connect and are held; the other two wait.
        spinMainQueue(for: 1.5)
        XCTAssertEqual(controller.log.all, [], "nothing failed: the host is unreachable, so requests wait")
        XCTAssertEqual(queue.requestsCount, 4)
        XCTAssertEqual(controller.starts.all.sorted(), ["1", "2"], "two slots: the first attempts of 1 and 2")

        let restartedAt = Date()
        server = try TestServer(port: port)
        defer { server.stop() }
        waitUntil(timeout: 30) { requests.allSatisfy(\.isFinished) }
        XCTAssertLessThan(Date().timeIntervalSince(restartedAt), 30)
        XCTAssertEqual(
            Set(controller.log.all), ["finished(1)", "finished(2)", "finished(3)", "finished(4)"],
            "\(requests.map { String(describing: $0.error) })")
        XCTAssertEqual(requests.map { $0.responseData()?.count }, [100, 200, 300, 400])
        // The order in which the attempts began, not the server's order of arrival: request 3
        // may reuse request 1's connection and overtake request 2 on its new one.
        XCTAssertEqual(
            controller.starts.all.prefix(4).sorted(), ["1", "1", "2", "2"], "the held requests ran again first")
        XCTAssertEqual(controller.starts.all.count, 6)
    }

    func testThatTheDelegateCanTakeUnreachableRequests() throws {
        let port = try XCTUnwrap(Fixture.refusedURL.port)
        let queue = NetworkQueue()
        queue.reachabilityHost = "127.0.0.1"
        let controller = UnreachableController()
        queue.delegate = controller
        queue.setRequestDidBecomeUnreachableSelector(UnreachableController.unreachable)
        queue.setRequestDidFailSelector(UnreachableController.failed)
        queue.setRequestDidFinishSelector(UnreachableController.finished)
        let gone = HTTPRequest(url: URL(string: "http://127.0.0.1:\(port)/")!)
        gone.tag = 1
        let fine = HTTPRequest(url: Fixture.url(.delay(milliseconds: 300)))
        fine.tag = 2
        queue.addOperation(gone)
        queue.addOperation(fine)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(
            Set(controller.log.all), ["unreachable(1)", "finished(2)"], "no cancel-all for an unreachable host")
        XCTAssertEqual(gone.error?.type, .connectionFailure)
    }

    func testThatAReachableHostLeavesAConnectionFailureAFailure() {
        let queue = NetworkQueue()
        queue.reachabilityHost = "127.0.0.1"
        let controller = UnreachableController()
        queue.delegate = controller
        queue.setRequestDidFailSelector(UnreachableController.failed)
        let dropped = HTTPRequest(url: Fixture.url(.reset))
        dropped.tag = 1
        queue.addOperation(dropped)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(controller.log.all, ["failed(1)"], "the server is there: a reset is a plain failure")
    }
}
