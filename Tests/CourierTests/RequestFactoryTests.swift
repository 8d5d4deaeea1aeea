import Courier
import CourierTestServer
import XCTest

/// ABRequestManager's factory and parsing blocks.
final class RequestFactoryTests: XCTestCase {
    func testThatTheFactoryAppliesBasePathHeadersAndTimeoutSeenOnTheServer() throws {
        let server = try TestServer()
        defer { server.stop() }
        let factory = RequestFactory()
        var options = factory.options
        options.basePath = server.baseURL.absoluteString + "/"
        options.headers = ["Accept": "application/json", "X-Api-Key": "k-123"]
        options.timeout = 0.4
        factory.options = options

        let get = factory.get("/echo")
        XCTAssertEqual(get.timeOutSeconds, 0.4)
        get.startSynchronous()
        let echo = try Echo(from: get)
        XCTAssertEqual(echo.method, "GET")
        XCTAssertEqual(echo.target, "/echo")
        XCTAssertEqual(echo.header("Accept"), "application/json")
        XCTAssertEqual(echo.header("X-Api-Key"), "k-123")

        let post = factory.post("echo", data: Data("posted".utf8))
        post.startSynchronous()
        XCTAssertEqual(try Echo(from: post).method, "POST")
        XCTAssertEqual(try Echo(from: post).bodyData, Data("posted".utf8))

        let put = factory.put("echo", data: Data("put".utf8))
        put.startSynchronous()
        XCTAssertEqual(try Echo(from: put).method, "PUT")

        let delete = factory.delete("echo")
        delete.startSynchronous()
        XCTAssertEqual(try Echo(from: delete).method, "DELETE")

        let custom = factory.request("echo", method: "PATCH", data: nil)
        custom.startSynchronous()
        XCTAssertEqual(try Echo(from: custom).method, "PATCH")

        // The timeout is the factory's: a stall fails after 0.4 s.
        let stalled = factory.get("stall")
        let started = Date()
        stalled.startSynchronous()
        XCTAssertEqual(stalled.error?.type, .requestTimedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testThatTheFactorysDefaultsAreNSURLRequestsAndOtherRequestsKeepASIs() throws {
        let defaults = RequestOptions()
        XCTAssertNil(defaults.basePath)
        XCTAssertEqual(defaults.timeout, 60, "NSURLRequest's timeoutInterval, as ABRequestOptions")
        XCTAssertTrue(defaults.headers.isEmpty)
        XCTAssertTrue(defaults.cookies)
        XCTAssertEqual(defaults.cachePolicy, .useDefault)

        let factory = RequestFactory()
        factory.options.basePath = Fixture.server.baseURL.absoluteString
        let made = factory.get("echo")
        XCTAssertEqual(made.timeOutSeconds, 60)
        XCTAssertTrue(made.useCookiePersistence)
        XCTAssertEqual(made.cachePolicy, .useDefault)
        XCTAssertEqual(RequestFactory.shared.post("http://127.0.0.1:9/x", data: nil).timeOutSeconds, 60)
        made.startSynchronous()

        let plain = HTTPRequest(url: Fixture.url(.echo))
        XCTAssertEqual(plain.timeOutSeconds, 10, "a request made otherwise keeps ASI's default")
        plain.startSynchronous()
        let names = { (echo: Echo) in echo.headers.compactMap { $0.first?.lowercased() }.sorted() }
        XCTAssertEqual(names(try Echo(from: made)), names(try Echo(from: plain)), "no headers of the factory's own")
    }

    func testThatPathsJoinWithOneSlashAndAbsoluteURLsWin() {
        let factory = RequestFactory()
        factory.options.basePath = "http://127.0.0.1:9/api"
        XCTAssertEqual(factory.get("users/1").url.absoluteString, "http://127.0.0.1:9/api/users/1")
        XCTAssertEqual(factory.get("/users/1").url.absoluteString, "http://127.0.0.1:9/api/users/1")
        XCTAssertEqual(factory.get("http://127.0.0.1:10/x").url.absoluteString, "http://127.0.0.1:10/x")
        factory.options.basePath = nil
        let relative = factory.get("users/1")
        relative.startSynchronous()
        XCTAssertEqual(relative.error?.type, .unableToCreateRequest, "a relative path with no base makes no http URL")
    }

    func testThatTheFactoryMakesSubclassesAndCarriesCookiesAndCachePolicy() {
        let factory = RequestFactory()
        factory.options.basePath = Fixture.server.baseURL.absoluteString
        factory.options.cookies = false
        factory.options.cachePolicy = [.onlyLoadIfNotCached]
        let request = factory.request("echo", method: "GET", data: nil, as: EchoMethodRequest.self)
        XCTAssertFalse(request.useCookiePersistence)
        XCTAssertEqual(request.cachePolicy, [.onlyLoadIfNotCached])
        request.startSynchronous()
        XCTAssertEqual(request.parsedMethod, "GET")
    }

    func testThatAParsingBlocksResultIsReadyBeforeTheFinishCallbacks() {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.parsingBlock = { data in
            XCTAssertFalse(Thread.isMainThread, "parsing runs on a background queue")
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            return object?["method"] as? String ?? "?"
        }
        let seen = EventLog()
        request.setCompletionBlock { request in seen.add("finished with \(request.parsedResult as? String ?? "nil")") }
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(seen.all, ["finished with GET"])
    }

    func testThatAParsingBlocksErrorFailsTheRequest() {
        struct NotJSON: Error {}
        let request = HTTPRequest(url: Fixture.url(.bytes(10)))
        request.parsingBlock = { _ in throw NotJSON() }
        let seen = EventLog()
        request.setCompletionBlock { _ in seen.add("finished") }
        request.setFailedBlock { _ in seen.add("failed") }
        request.startSynchronous()
        XCTAssertEqual(seen.all, ["failed"])
        XCTAssertEqual(request.error?.type, .unhandledException)
        XCTAssertTrue(request.error?.underlyingError is NotJSON)
        XCTAssertNil(request.parsedResult)
        XCTAssertEqual(request.responseStatusCode, 200, "the response is kept")
    }

    func testThatCookiesFollowUseCookiePersistence() throws {
        let server = try TestServer()
        defer { server.stop() }
        // "localhost", so no cookie reaches the other tests' 127.0.0.1 requests.
        func url(_ route: Route) -> URL { URL(string: "http://localhost:\(server.port)\(route.path)")! }
        let setter = HTTPRequest(
            url: url(.headerFields([HeaderField(name: "Set-Cookie", value: "session=abc; Path=/")])))
        setter.startSynchronous()
        XCTAssertNil(setter.error)

        let withJar = HTTPRequest(url: url(.echo))
        withJar.startSynchronous()
        let sent = try XCTUnwrap(try Echo(from: withJar).header("Cookie"))
        XCTAssertTrue(
            sent.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.contains("session=abc"), sent)

        let withoutJar = HTTPRequest(url: url(.echo))
        withoutJar.useCookiePersistence = false
        withoutJar.startSynchronous()
        XCTAssertNil(try Echo(from: withoutJar).header("Cookie"))
    }
}
