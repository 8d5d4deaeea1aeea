import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Many requests at once through the shared queue and the one engine.
final class LoadTests: XCTestCase {
    func testThatAThousandAsynchronousRequestsAllComplete() {
        let count = 1_000
        let finished = EventLog()
        let callbacks = DispatchQueue(label: "load-callbacks")
        var requests: [HTTPRequest] = []
        for index in 0..<count {
            let request = HTTPRequest(url: Fixture.url(.bytes(1024)))
            request.tag = index
            request.callbackQueue = callbacks
            request.setCompletionBlock { request in
                finished.add(request.responseData() == TestServer.deterministicBytes(count: 1024) ? "ok" : "bad body")
            }
            request.setFailedBlock { request in finished.add("failed: \(String(describing: request.error))") }
            requests.append(request)
        }
        for request in requests { request.startAsynchronous() }
        waitUntil(timeout: 60) { requests.allSatisfy(\.isFinished) }
        XCTAssertEqual(finished.all.count, count, "each request called back exactly once")
        XCTAssertEqual(finished.all.filter { $0 != "ok" }, [])
    }
}
