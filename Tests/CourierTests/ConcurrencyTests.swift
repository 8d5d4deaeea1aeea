import Courier
import CourierTestServer
import Testing

/// `response()`: async/await over a request.
@Suite struct ConcurrencyTests {
    @Test func responseStartsTheRequestAndReturnsItFinished() async throws {
        let request = HTTPRequest(url: Fixture.url(.bytes(2048)))
        request.callbackQueue = .global()
        let finished = try await request.response()
        #expect(finished === request)
        #expect(finished.responseStatusCode == 200)
        #expect(finished.responseData() == TestServer.deterministicBytes(count: 2048))
        #expect(finished.isFinished)
    }

    @Test func responseThrowsTheRequestsError() async {
        let request = HTTPRequest(url: Fixture.refusedURL)
        request.callbackQueue = .global()
        do {
            _ = try await request.response()
            Issue.record("a refused connection must throw")
        } catch {
            #expect(error.type == .connectionFailure)
            #expect(error.curlCode == 7)
        }
    }

    @Test func responseOfAFinishedRequestReturnsAtOnce() async throws {
        let request = HTTPRequest(url: Fixture.url(.bytes(1)))
        request.startSynchronous()
        let again = try await request.response()
        #expect(again.responseStatusCode == 200)
    }

    @Test func responseKeepsTheSubclassType() async throws {
        let request = EchoMethodRequest(url: Fixture.url(.echo))
        request.callbackQueue = .global()
        let parsed: EchoMethodRequest = try await request.response()
        #expect(parsed.parsedMethod == "GET")
    }

    @Test func cancellingTheTaskCancelsTheTransfer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let request = HTTPRequest(url: server.url(.stall))
        request.callbackQueue = .global()
        request.timeOutSeconds = 30
        let task = Task { try await request.response() }
        let deadline = Date(timeIntervalSinceNow: 10)
        while server.requestsReceived == 0 {
            try #require(Date() < deadline, "the server did not receive the request within 10 s")
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        task.cancel()
        let result = await task.result
        #expect(throws: HTTPRequestError.self) { try result.get() }
        #expect(request.error?.type == .requestCancelled)
        #expect(server.waitForClientClose(count: 1, timeout: 1), "the server saw the connection closed")
    }
}
