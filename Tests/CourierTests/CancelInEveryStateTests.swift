import CourierTestServer
import XCTest

@testable import Courier

/// A cancel ends a request within a second whatever it is doing: connecting, waiting for an
/// answer, between timeout retries, waiting for a redirect decision, or held while its host is
/// unreachable. Each ends with one `requestCancelled` failure and `isFinished`.
final class CancelInEveryStateTests: XCTestCase {
    /// Asked, and never answers.
    private final class SilentRedirectDelegate: HTTPRequestRedirectDelegate, @unchecked Sendable {
        // @unchecked Sendable: `asked` is locked.
        let asked = Locked(false)
        func request(_ request: HTTPRequest, willRedirectTo url: URL) { asked.withLock { $0 = true } }
    }

    /// Cancels `request` once `isInState` holds, and checks that it ends within a second.
    private func assertCancelEndsIt(
        _ request: HTTPRequest, _ state: String, file: StaticString = #filePath, line: UInt = #line,
        once isInState: () -> Bool
    ) {
        waitUntil(timeout: 10, file: file, line: line, isInState)
        XCTAssertFalse(request.isFinished, "\(state): still running before the cancel", file: file, line: line)
        let cancelled = Date()
        request.cancel()
        waitUntil(timeout: 5, file: file, line: line) { request.isFinished }
        XCTAssertLessThan(
            Date().timeIntervalSince(cancelled), 1, "\(state): ended within a second", file: file, line: line)
        XCTAssertEqual(request.error?.type, .requestCancelled, state, file: file, line: line)
    }

    func testThatACancelEndsARequestWaitingForAnAnswer() {
        let request = HTTPRequest(url: Fixture.url(.stall))
        request.timeOutSeconds = 30
        request.startAsynchronous()
        assertCancelEndsIt(request, "waiting for an answer") {
            Fixture.server.recordedRequests.contains { $0.target == "/stall" }
        }
    }

    func testThatACancelEndsARequestBetweenTimeoutRetries() {
        let request = HTTPRequest(url: Fixture.url(.stall))
        request.timeOutSeconds = 0.2
        request.numberOfTimesToRetryOnTimeout = 50
        request.startAsynchronous()
        assertCancelEndsIt(request, "retrying after timeouts") { request.retryCount >= 2 }
    }

    func testThatACancelEndsARequestWaitingForARedirectDecision() {
        let delegate = SilentRedirectDelegate()
        let request = HTTPRequest(url: Fixture.url(.redirect(302, to: "/bytes/1")))
        request.delegate = delegate
        request.startAsynchronous()
        assertCancelEndsIt(request, "waiting for redirect(to:)") { delegate.asked.withLock { $0 } }
        withExtendedLifetime(delegate) {}
    }

    func testThatACancelEndsARequestHeldWhileItsHostIsUnreachable() throws {
        let queue = NetworkQueue()
        queue.reachabilityHost = "127.0.0.1"
        let request = HTTPRequest(url: Fixture.refusedURL)
        queue.addOperation(request)
        queue.go()
        assertCancelEndsIt(request, "held for reachability") { queue.state.withLock { !$0.held.isEmpty } }
        waitUntil { queue.operationCount == 0 }
    }
}
