import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// ABRequestManager's model on a NetworkQueue: one request at a time, head first; a 401 puts a
/// token request first and retries a copy; a transport failure does not stall the queue.
final class ManagerPatternTests: ServerTestCase {
    private func managerQueue() -> NetworkQueue {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1
        queue.shouldCancelAllRequestsOnFailure = false
        return queue
    }

    func testThatA401LeadsToATokenRequestFirstAndARetriedCopyThatSucceeds() {
        let queue = managerQueue()
        let key = UUID().uuidString
        let log = EventLog()
        let original = HTTPRequest(url: server.url(.tokenProtected(key: key)))
        let other = HTTPRequest(url: server.url(.bytes(10)))
        original.setFailedBlock { [server] request in
            guard request.error?.type == .authentication else { return }
            log.add("401")
            let retry = request.copy()
            retry.setCompletionBlock { request in log.add(request.responseString() ?? "") }
            let token = HTTPRequest(url: server!.url(.issueToken(key: key)))
            token.setCompletionBlock { token in
                log.add("token")
                retry.addRequestHeader("Authorization", value: "Bearer " + (token.responseString() ?? ""))
            }
            queue.addFirst(token)
            queue.addOperation(retry)
        }
        queue.addOperation(original)
        queue.addOperation(other)
        queue.go()
        waitUntil { log.all.count == 3 && queue.requestsCount == 0 }
        waitUntilAllFinished(queue)
        XCTAssertEqual(log.all, ["401", "token", "secret for token-1"])
        XCTAssertEqual(
            server.recordedRequests.map(\.target),
            ["/protected/\(key)", "/token/\(key)", "/bytes/10", "/protected/\(key)"],
            "the token request ran next, before the waiting one; the retry went to the end")
    }

    func testThatATransportFailureDoesNotStallTheQueue() {
        let queue = managerQueue()
        let failing = HTTPRequest(url: Fixture.refusedURL)
        let after = [HTTPRequest(url: server.url(.bytes(1))), HTTPRequest(url: server.url(.bytes(2)))]
        queue.addOperation(failing)
        for request in after { queue.addOperation(request) }
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(failing.error?.type, .connectionFailure)
        XCTAssertEqual(after.map(\.responseStatusCode), [200, 200])
        XCTAssertEqual(server.recordedRequests.map(\.target), ["/bytes/1", "/bytes/2"])
    }
}
