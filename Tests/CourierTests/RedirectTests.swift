import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A delegate that decides redirects.
final class RedirectDecider: HTTPRequestRedirectDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked; `destination` is set before the request starts.
    let log = EventLog()
    var destination: URL?
    func request(_ request: HTTPRequest, willRedirectTo url: URL) {
        log.add("willRedirect \(url.path)")
        request.redirect(to: destination ?? url)
    }
    func requestRedirected(_ request: HTTPRequest) { log.add("redirected") }
    func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
        log.add("headers \(request.responseStatusCode)")
    }
}

/// ASI's redirect rules, checked on the server's side at the last hop.
final class RedirectTests: ServerTestCase {
    private func post(through status: Int, rfc2616: Bool = false) throws -> (HTTPRequest, Echo) {
        let request = HTTPRequest(url: server.url(.redirect(status, to: "/echo")))
        request.requestMethod = "POST"
        request.postBody = Data("lookbehindyou=Giant+Monkey".utf8)
        request.addRequestHeader("X-Custom", value: "kept?")
        request.addRequestHeader("User-Agent", value: "test")
        request.addRequestHeader("Accept", value: "text/plain")
        request.shouldUseRFC2616RedirectBehaviour = rfc2616
        request.startSynchronous()
        XCTAssertNil(request.error)
        return (request, try Echo(from: request))
    }

    func testThat301302And303BecomeAGetWithoutBodyOrTheUsersHeaders() throws {
        for status in [301, 302, 303] {
            let (request, echo) = try post(through: status)
            XCTAssertEqual(echo.method, "GET", "\(status)")
            XCTAssertEqual(echo.bodyLength, 0)
            XCTAssertNil(echo.header("X-Custom"), "the user's headers are dropped")
            XCTAssertEqual(echo.header("User-Agent"), "test", "User-Agent survives")
            XCTAssertEqual(echo.header("Accept"), "text/plain", "Accept survives")
            XCTAssertEqual(request.requestHeaders["User-Agent"], "test")
            XCTAssertEqual(request.requestMethod, "GET")
            XCTAssertEqual(request.redirectCount, 1)
            XCTAssertEqual(request.url, server.url(.echo))
            XCTAssertEqual(request.originalURL, server.url(.redirect(status, to: "/echo")))
        }
    }

    func testThatRFC2616ModeKeeps301And302WholeButNot303() throws {
        for status in [301, 302] {
            let (_, echo) = try post(through: status, rfc2616: true)
            XCTAssertEqual(echo.method, "POST", "\(status)")
            XCTAssertEqual(echo.bodyData, Data("lookbehindyou=Giant+Monkey".utf8))
            XCTAssertEqual(echo.header("X-Custom"), "kept?")
        }
        let (_, echo) = try post(through: 303, rfc2616: true)
        XCTAssertEqual(echo.method, "GET")
    }

    func testThat307And308KeepMethodBodyAndHeaders() throws {
        for status in [307, 308] {
            let (_, echo) = try post(through: status)
            XCTAssertEqual(echo.method, "POST", "\(status)")
            XCTAssertEqual(echo.bodyData, Data("lookbehindyou=Giant+Monkey".utf8))
            XCTAssertEqual(echo.header("X-Custom"), "kept?")
        }
    }

    func testThatTheHeadersShownAreThoseOfTheLastHop() throws {
        let request = HTTPRequest(url: server.url(.redirect(303, to: "/echo")))
        request.postBody = Data(repeating: 0x61, count: 5000)
        request.shouldCompressRequestBody = true
        request.addRequestHeader("X-Custom", value: "dropped")
        request.startSynchronous()
        XCTAssertNil(request.error)
        let first = try XCTUnwrap(server.recordedRequests.first { $0.target.hasPrefix("/redirect") })
        XCTAssertEqual(first.header("Content-Encoding"), "gzip")
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.method, "GET")
        XCTAssertNil(echo.header("Content-Encoding"), "the first hop's generated headers are not resent")
        XCTAssertNil(echo.header("Content-Length"))
        // requestHeaders: the user's headers as the redirect rules left them, and what the last
        // hop generated.
        XCTAssertNil(request.requestHeaders["X-Custom"])
        XCTAssertNil(request.requestHeaders["Content-Encoding"])
        XCTAssertNil(request.requestHeaders["Content-Length"])
        XCTAssertEqual(request.requestHeaders["Accept-Encoding"], echo.header("Accept-Encoding"))
        XCTAssertEqual(request.requestHeaders["User-Agent"], echo.header("User-Agent"))

        // 307 keeps the body: the last hop generated them again.
        let kept = HTTPRequest(url: server.url(.redirect(307, to: "/echo")))
        kept.postBody = Data("kept".utf8)
        kept.startSynchronous()
        let keptEcho = try Echo(from: kept)
        XCTAssertEqual(keptEcho.headers(named: "Content-Length"), ["4"])
        XCTAssertEqual(kept.requestHeaders["Content-Length"], "4")
    }

    func testThatShouldRedirectFalseStopsAtTheRedirect() {
        let request = HTTPRequest(url: server.url(.redirect(302, to: "/echo")))
        request.shouldRedirect = false
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 302)
        XCTAssertEqual(request.responseString(), "redirecting to /echo")
        XCTAssertEqual(server.requestsReceived, 1)
    }

    func testThatMaxRedirectsSetsHowManyHopsAreFollowed() {
        var twoHops = "/bytes/3"
        for _ in 0..<2 { twoHops = server.url(.redirect(302, to: twoHops)).absoluteString }
        let limited = HTTPRequest(url: URL(string: twoHops)!)
        limited.maxRedirects = 1
        limited.startSynchronous()
        XCTAssertEqual(limited.error?.type, .tooMuchRedirection)
        XCTAssertEqual(limited.error?.message, "The request redirected more than once")

        let none = HTTPRequest(url: server.url(.redirect(302, to: "/bytes/3")))
        none.maxRedirects = 0
        none.startSynchronous()
        XCTAssertEqual(none.error?.type, .tooMuchRedirection)

        var sevenHops = "/bytes/3"
        for _ in 0..<7 { sevenHops = server.url(.redirect(302, to: sevenHops)).absoluteString }
        let generous = HTTPRequest(url: URL(string: sevenHops)!)
        generous.maxRedirects = 7
        XCTAssertEqual(generous.copy().maxRedirects, 7, "a copy keeps the limit")
        generous.startSynchronous()
        XCTAssertNil(generous.error)
        XCTAssertEqual(generous.redirectCount, 7)
        XCTAssertEqual(generous.responseData(), TestServer.deterministicBytes(count: 3))
    }

    func testThatTheSixthHopFails() {
        // Five redirects are followed; the chain below has six.
        var target = "/bytes/3"
        for _ in 0..<6 { target = server.url(.redirect(302, to: target)).absoluteString }
        let request = HTTPRequest(url: URL(string: target)!)
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .tooMuchRedirection)

        var fiveHops = "/bytes/3"
        for _ in 0..<5 { fiveHops = server.url(.redirect(302, to: fiveHops)).absoluteString }
        let fine = HTTPRequest(url: URL(string: fiveHops)!)
        fine.startSynchronous()
        XCTAssertNil(fine.error)
        XCTAssertEqual(fine.redirectCount, 5)
        XCTAssertEqual(fine.responseData(), TestServer.deterministicBytes(count: 3))
    }

    func testThatRedirectsToOtherSchemesFail() {
        for target in ["file:///etc/passwd", "ftp://127.0.0.1/x"] {
            let request = HTTPRequest(url: server.url(.redirect(302, to: target)))
            request.startSynchronous()
            XCTAssertEqual(request.error?.type, .unableToCreateRequest, target)
            XCTAssertTrue(request.error?.message.contains(target) ?? false)
        }
    }

    func testThatCredentialsDoNotFollowToAnotherPort() throws {
        let other = try TestServer()
        defer { other.stop() }
        let request = HTTPRequest(url: server.url(.redirect(307, to: other.url(.echo).absoluteString)))
        // Only the user's Cookie header is in question: the shared jar may hold cookies other
        // tests got from 127.0.0.1 (httpbin's Digest sets two), and a cookie is not bound to a port.
        request.useCookiePersistence = false
        request.addRequestHeader("Authorization", value: "Bearer secret")
        request.addRequestHeader("Cookie", value: "mine=1")
        request.addRequestHeader("X-Other", value: "kept")
        request.startSynchronous()
        XCTAssertEqual(server.recordedRequests.first?.header("Authorization"), "Bearer secret", "the first host saw it")
        let echo = try Echo(from: request)
        XCTAssertNil(echo.header("Authorization"), "the second did not")
        XCTAssertNil(echo.header("Cookie"))
        XCTAssertEqual(echo.header("X-Other"), "kept")

        let asked = HTTPRequest(url: server.url(.redirect(307, to: other.url(.echo).absoluteString)))
        asked.addRequestHeader("Authorization", value: "Bearer secret")
        asked.shouldSendCredentialsAcrossRedirects = true
        asked.startSynchronous()
        XCTAssertEqual(try Echo(from: asked).header("Authorization"), "Bearer secret")
    }

    func testThatCredentialsFollowWithinTheSameHostAndPort() throws {
        let request = HTTPRequest(url: server.url(.redirect(307, to: "/echo")))
        request.addRequestHeader("Authorization", value: "Bearer secret")
        request.startSynchronous()
        XCTAssertEqual(try Echo(from: request).header("Authorization"), "Bearer secret")
    }

    func testThatRequestRedirectedComesBeforeTheRedirectsHeadersAndTheDelegateDecides() throws {
        let decider = RedirectDecider()
        decider.destination = server.url(.bytes(7))
        let request = HTTPRequest(url: server.url(.redirect(302, to: "/echo")))
        request.delegate = decider
        request.setRequestRedirectedBlock { _ in decider.log.add("block.redirected") }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(
            decider.log.all,
            ["redirected", "block.redirected", "headers 302", "willRedirect /echo", "headers 200"])
        XCTAssertEqual(request.url, server.url(.bytes(7)), "the delegate chose where to go")
        XCTAssertEqual(request.responseData(), TestServer.deterministicBytes(count: 7))
    }

    func testThatAQueuesRedirectSelectorDecides() {
        final class Controller: @unchecked Sendable {
            // @unchecked Sendable: the log is locked.
            let log = EventLog()
            func willRedirect(_ request: HTTPRequest, _ url: URL) {
                log.add(url.path)
                request.redirect(to: url)
            }
        }
        let controller = Controller()
        let queue = NetworkQueue()
        queue.delegate = controller
        queue.setRequestWillRedirectSelector(Controller.willRedirect)
        let request = HTTPRequest(url: server.url(.redirect(301, to: "/bytes/2")))
        queue.addOperation(request)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(controller.log.all, ["/bytes/2"])
        XCTAssertEqual(request.responseStatusCode, 200)
    }

    func testThatARedirectDelegateReleasedWhileTheRequestWaitsLetsItGoOn() {
        /// Asked, and never answers.
        final class Forgetful: HTTPRequestRedirectDelegate, @unchecked Sendable {
            // @unchecked Sendable: `asked` is locked.
            let asked = Locked(false)
            func request(_ request: HTTPRequest, willRedirectTo url: URL) { asked.withLock { $0 = true } }
        }
        var delegate: Forgetful? = Forgetful()
        let asked = delegate!.asked
        let request = HTTPRequest(url: server.url(.redirect(302, to: "/bytes/7")))
        request.delegate = delegate
        request.startAsynchronous()
        waitUntil { asked.withLock { $0 } }
        spinMainQueue(for: 0.3)
        XCTAssertFalse(request.isFinished, "it waits while its delegate is there")
        delegate = nil
        let released = Date()
        waitUntil(timeout: 5) { request.isFinished }
        XCTAssertLessThan(Date().timeIntervalSince(released), 1, "it went on within a second")
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData()?.count, 7, "as if no redirect delegate had been set")
    }

    func testThatAQueueDelegateReleasedWhileARequestWaitsLetsItGoOn() {
        final class Controller: @unchecked Sendable {
            // @unchecked Sendable: `asked` is locked.
            let asked = Locked(false)
            func willRedirect(_ request: HTTPRequest, _ url: URL) { asked.withLock { $0 = true } }
        }
        var controller: Controller? = Controller()
        let asked = controller!.asked
        let queue = NetworkQueue()
        queue.delegate = controller
        queue.setRequestWillRedirectSelector(Controller.willRedirect)
        let request = HTTPRequest(url: server.url(.redirect(301, to: "/bytes/3")))
        queue.addOperation(request)
        queue.go()
        waitUntil { asked.withLock { $0 } }
        controller = nil
        waitUntil(timeout: 5) { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData()?.count, 3)
    }

    func testThatCookiesSetOnTheWayAreSentOnTheNextHop() throws {
        // "localhost", so the cookie stays out of the other tests' 127.0.0.1 requests.
        let base = "http://localhost:\(server.port)"
        let first = URL(
            string: base + Route.redirect(302, to: base + "/echo", setCookie: "hop=\(UUID().uuidString)").path)!
        let request = HTTPRequest(url: first)
        request.startSynchronous()
        let cookie = try XCTUnwrap(try Echo(from: request).header("Cookie"))
        XCTAssertTrue(cookie.hasPrefix("hop="), "the cookie from the redirect went with the next hop: \(cookie)")
    }
}
