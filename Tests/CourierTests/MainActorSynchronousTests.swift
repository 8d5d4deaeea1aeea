import Courier
import CourierTestServer
import Testing

/// Swift Testing runs a `@MainActor` test as a main-queue block on a worker thread: a
/// synchronous request must still run its callbacks there, without deadlock.
@Suite struct MainActorSynchronousTests {
    @MainActor @Test func synchronousRequestInAMainActorTestCallsBackInline() throws {
        let log = EventLog()
        let request = HTTPRequest(url: Fixture.url(.bytes(64)))
        request.setStartedBlock { _ in log.add("started") }
        request.setHeadersReceivedBlock { _, _ in log.add("headers") }
        request.setCompletionBlock { request in log.add("finished \(request.responseStatusCode)") }
        request.startSynchronous()
        #expect(log.all == ["started", "headers", "finished 200"])
        #expect(request.responseData()?.count == 64)
    }
}
