import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// What a redirect's callbacks saw of `url` and `redirectCount`.
final class RedirectViewRecorder: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: `views` is guarded by its lock.
    let views = Locked<[String]>([])

    func record(_ event: String, _ request: HTTPRequest) {
        let view = "\(event) \(request.url.absoluteString) #\(request.redirectCount)"
        views.withLock { $0.append(view) }
    }

    func requestRedirected(_ request: HTTPRequest) { record("redirected", request) }
    func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
        record("headers \(request.responseStatusCode)", request)
    }
    /// Performed with `setRequestRedirectedSelector` instead of `requestRedirected(_:)`.
    func redirectedSelector(_ request: HTTPRequest) { record("selector.redirected", request) }
}

/// A redirect delegate that records what `willRedirectTo` saw, then goes on.
final class RedirectAskRecorder: HTTPRequestRedirectDelegate, @unchecked Sendable {
    let recorder = RedirectViewRecorder()
    func requestRedirected(_ request: HTTPRequest) { recorder.requestRedirected(request) }
    func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
        recorder.request(request, didReceiveResponseHeaders: headers)
    }
    func request(_ request: HTTPRequest, willRedirectTo url: URL) {
        recorder.record("willRedirect to \(url.absoluteString):", request)
        request.redirect(to: url)
    }
}

/// `requestRedirected` sees the request as it is when the redirect is decided: `url` is the URL
/// that answered with the redirect and `redirectCount` has not counted it yet (ASI called
/// requestRedirected before it set redirectURL; its url changed only in performRedirect). So do
/// the redirect hop's headers callback and `willRedirectTo` (which gets the new URL as its
/// argument). Before the fix the engine went on to the next URL while the callback was still
/// queued: the callback read either URL.
final class RedirectCallbackTests: ServerTestCase {
    private func expectedViews(from old: URL, to new: URL, event: String) -> [String] {
        [
            "\(event) \(old.absoluteString) #0", "block.redirected \(old.absoluteString) #0",
            "headers 302 \(old.absoluteString) #0", "headers 200 \(new.absoluteString) #1",
        ]
    }

    func testThatEveryFormOfRequestRedirectedSeesTheOldURLOverManyRuns() {
        let callbackQueue = DispatchQueue(label: "redirect-callbacks")
        let target = server.url(.bytes(10))
        var requests: [(HTTPRequest, RedirectViewRecorder, String)] = []
        for index in 0..<200 {
            let request = HTTPRequest(url: server.url(.redirect(302, to: target.absoluteString + "?n=\(index)")))
            request.callbackQueue = callbackQueue
            let recorder = RedirectViewRecorder()
            request.delegate = recorder
            let event = index.isMultiple(of: 2) ? "redirected" : "selector.redirected"
            if !index.isMultiple(of: 2) {
                request.setRequestRedirectedSelector(RedirectViewRecorder.redirectedSelector)
            }
            request.setRequestRedirectedBlock { recorder.record("block.redirected", $0) }
            // Keep the callback queue busy now and then, so the callbacks run late.
            if index.isMultiple(of: 10) { callbackQueue.async { Thread.sleep(forTimeInterval: 0.005) } }
            request.startAsynchronous()
            requests.append((request, recorder, event))
        }
        waitUntil(timeout: 60) { requests.allSatisfy { $0.0.isFinished } }
        for (index, (request, recorder, event)) in requests.enumerated() {
            XCTAssertNil(request.error)
            let new = URL(string: target.absoluteString + "?n=\(index)")!
            XCTAssertEqual(request.url, new)
            XCTAssertEqual(
                recorder.views.current, expectedViews(from: request.originalURL!, to: new, event: event),
                "request \(index)")
        }
    }

    func testThatACallbackQueueBusyUntilTheNextHopStillSeesTheOldURL() {
        let callbackQueue = DispatchQueue(label: "redirect-callbacks-busy")
        let target = server.url(.bytes(10))
        let old = server.url(.redirect(302, to: target.absoluteString))
        let request = HTTPRequest(url: old)
        request.callbackQueue = callbackQueue
        let recorder = RedirectViewRecorder()
        request.delegate = recorder
        request.setRequestRedirectedBlock { recorder.record("block.redirected", $0) }
        let server = self.server!
        // The callback queue stays busy until the next hop reached the server, or 0.5 s: the
        // request must not have moved on behind its callbacks' back.
        request.setStartedBlock { _ in
            let deadline = Date(timeIntervalSinceNow: 0.5)
            while server.recordedRequests.count < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.url, target)
        XCTAssertEqual(recorder.views.current, expectedViews(from: old, to: target, event: "redirected"))
    }

    func testThatWillRedirectToSeesTheOldURLAndGetsTheNewOne() {
        let target = server.url(.bytes(10))
        let old = server.url(.redirect(302, to: target.absoluteString))
        let request = HTTPRequest(url: old)
        request.callbackQueue = DispatchQueue(label: "redirect-ask")
        let asker = RedirectAskRecorder()
        request.delegate = asker
        request.setRequestRedirectedBlock { asker.recorder.record("block.redirected", $0) }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(
            asker.recorder.views.current,
            [
                "redirected \(old.absoluteString) #0", "block.redirected \(old.absoluteString) #0",
                "headers 302 \(old.absoluteString) #0",
                "willRedirect to \(target.absoluteString): \(old.absoluteString) #1",
                "headers 200 \(target.absoluteString) #1",
            ])
    }
}
