import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// `timeOutSeconds` is inactivity measured by the engine; `numberOfTimesToRetryOnTimeout` runs
/// the request again, as a new attempt, for timeouts only.
final class TimeoutTests: ServerTestCase {
    private var uniqueKey: String { UUID().uuidString }

    func testThatAStalledServerTimesOutAfterAFractionOfASecond() {
        let request = HTTPRequest(url: server.url(.stall))
        request.timeOutSeconds = 0.5
        let started = Date()
        request.startSynchronous()
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(request.error?.type, .requestTimedOut)
        XCTAssertTrue(request.error?.isTimeout ?? false)
        XCTAssertGreaterThanOrEqual(elapsed, 0.45)
        XCTAssertLessThan(elapsed, 2)
        XCTAssertTrue(server.waitForClientClose(count: 1, timeout: 1), "the timed-out connection is closed")
    }

    func testThatATrickleThatKeepsMovingDoesNotTimeOut() {
        // 40 bytes, one every 50 ms: 2 s in all, never 0.3 s without progress.
        let request = HTTPRequest(url: server.url(.trickle(40, intervalMilliseconds: 50)))
        request.timeOutSeconds = 0.3
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: 40))
    }

    func testThatTheDefaultTimeoutAppliesToNewRequests() {
        let saved = HTTPRequest.defaultTimeOutSeconds
        defer { HTTPRequest.defaultTimeOutSeconds = saved }
        XCTAssertEqual(saved, 10)
        HTTPRequest.defaultTimeOutSeconds = 0.3
        let request = HTTPRequest(url: server.url(.stall))
        XCTAssertEqual(request.timeOutSeconds, 0.3)
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .requestTimedOut)
    }

    func testThatARequestRetriedTwiceMakesThreeAttempts() {
        let key = uniqueKey
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(.stallTimes(key: key, count: 10)))
        request.delegate = delegate
        request.timeOutSeconds = 0.3
        request.numberOfTimesToRetryOnTimeout = 2
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .requestTimedOut)
        XCTAssertEqual(request.retryCount, 2)
        XCTAssertEqual(server.hits(forKey: key), 3)
        XCTAssertEqual(
            delegate.log.all,
            [
                "delegate.started@main", "delegate.started@main", "delegate.started@main",
                "delegate.failed(requestTimedOut)@main",
            ])
    }

    func testThatRetriesRecoverWhenTheServerAnswersInTime() {
        let key = uniqueKey
        let delegate = RecordingDelegate()
        let request = HTTPRequest(url: server.url(.stallTimes(key: key, count: 2)))
        request.delegate = delegate
        request.timeOutSeconds = 0.3
        request.numberOfTimesToRetryOnTimeout = 2
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.retryCount, 2)
        XCTAssertEqual(request.responseString(), "answered after 2 stalls")
        XCTAssertEqual(
            delegate.log.all,
            [
                "delegate.started@main", "delegate.started@main", "delegate.started@main", "delegate.headers(200)@main",
                "delegate.finished(finished=false)@main",
            ])
    }

    func testThatTheBodyIsSentAgainOnEveryAttempt() {
        let key = uniqueKey
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
        let request = HTTPRequest(url: server.url(.stallTimes(key: key, count: 1)))
        request.requestMethod = "PUT"
        request.postBody = body
        request.timeOutSeconds = 0.3
        request.numberOfTimesToRetryOnTimeout = 1
        request.startSynchronous()
        XCTAssertNil(request.error)
        let received = server.recordedRequests.filter { $0.target.contains(key) }
        XCTAssertEqual(received.count, 2)
        XCTAssertEqual(received.map(\.body), [body, body])
        XCTAssertEqual(received.map(\.method), ["PUT", "PUT"])
    }

    func testThatA500IsAFinishedRequestAndIsNotRetried() {
        let key = uniqueKey
        let request = HTTPRequest(url: server.url(.statusTimes(key: key, count: 1, status: 500)))
        request.timeOutSeconds = 0.3
        request.numberOfTimesToRetryOnTimeout = 3
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 500)
        XCTAssertEqual(request.retryCount, 0)
        XCTAssertEqual(server.hits(forKey: key), 1)
    }

    func testThatACancelDuringRetriesEndsWithCancelled() {
        let request = HTTPRequest(url: server.url(.stallTimes(key: uniqueKey, count: 100)))
        request.timeOutSeconds = 0.2
        request.numberOfTimesToRetryOnTimeout = 100
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { request.cancel() }
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertGreaterThan(request.retryCount, 0)
    }
}
