import CourierTestServer
import Foundation
import XCTest

@testable import Courier

/// `pacURL` end to end: PAC files on disk and served over http choosing the fixture server as
/// an HTTP proxy (it serves absolute-form requests to itself, marked `X-Courier-Proxied: 1`) for
/// one host and DIRECT for another; broken and unreachable PAC files.
final class PACTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pac-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        HTTPRequest.logHandler = nil
    }

    private var port: Int { Fixture.server.port }

    /// A PAC file sending `localhost` through the fixture server and everything else direct.
    private var proxyForLocalhost: String {
        """
        function FindProxyForURL(url, host) {
            if (localHostOrDomainIs(host, "localhost")) return "PROXY 127.0.0.1:\(port); DIRECT";
            return "DIRECT";
        }
        """
    }

    private func writePAC(_ source: String) throws -> URL {
        let file = directory.appendingPathComponent("proxy-\(UUID()).pac")
        try Data(source.utf8).write(to: file)
        return file
    }

    private func get(_ url: URL, pac: URL?) -> HTTPRequest {
        let request = HTTPRequest(url: url)
        request.pacURL = pac
        request.startSynchronous()
        return request
    }

    private func assertRouting(pac: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let proxied = get(URL(string: "http://localhost:\(port)/echo")!, pac: pac)
        XCTAssertNil(proxied.error, file: file, line: line)
        XCTAssertEqual(proxied.responseHeaders["X-Courier-Proxied"], "1", "localhost goes through the proxy")
        XCTAssertEqual(try Echo(from: proxied).target, "http://localhost:\(port)/echo", file: file, line: line)

        let direct = get(Fixture.url(.echo), pac: pac)
        XCTAssertNil(direct.error, file: file, line: line)
        XCTAssertEqual(direct.responseStatusCode, 200, file: file, line: line)
        XCTAssertNil(direct.responseHeaders["X-Courier-Proxied"], "127.0.0.1 goes direct", file: file, line: line)
        XCTAssertEqual(try Echo(from: direct).target, "/echo", file: file, line: line)
    }

    func testAPACFileOnDiskChoosesTheProxyForOneHostAndDirectForAnother() throws {
        try assertRouting(pac: try writePAC(proxyForLocalhost))
    }

    func testAPACFileServedOverHTTPChoosesTheProxyForOneHostAndDirectForAnother() throws {
        let route = Route.text(proxyForLocalhost, contentType: "application/x-ns-proxy-autoconfig")
        try assertRouting(pac: Fixture.url(route))
        let fetches = Fixture.server.recordedRequests(for: route)
        XCTAssertEqual(fetches.count, 1, "the PAC file is fetched once for both requests")
        XCTAssertFalse(fetches.first?.target.hasPrefix("http") ?? true, "the PAC file itself is fetched direct")
    }

    func testAnAsynchronousRequestAndARedirectHopAskThePACFile() async throws {
        let pac = try writePAC(proxyForLocalhost)
        let request = HTTPRequest(url: Fixture.url(.redirect(302, to: "http://localhost:\(port)/echo")))
        request.pacURL = pac
        _ = try await request.response()
        XCTAssertEqual(request.url.host, "localhost")
        XCTAssertEqual(request.responseHeaders["X-Courier-Proxied"], "1", "the hop to localhost goes through the proxy")
        XCTAssertEqual(try Echo(from: request).target, "http://localhost:\(port)/echo")
    }

    func testDirectIgnoresTheProxyOfTheEnvironment() throws {
        let pac = try writePAC("function FindProxyForURL(url, host) { return 'DIRECT'; }")
        let previous = ProcessInfo.processInfo.environment["http_proxy"]
        setenv("http_proxy", Fixture.refusedURL.absoluteString, 1)
        defer {
            if let previous { setenv("http_proxy", previous, 1) } else { unsetenv("http_proxy") }
        }
        let request = get(Fixture.url(.echo), pac: pac)
        XCTAssertNil(request.error, "DIRECT does not go to the environment's proxy, which refuses connections")
        XCTAssertEqual(request.responseStatusCode, 200)
    }

    func testAProxySetByHandWinsOverThePACFile() throws {
        let pac = try writePAC("function FindProxyForURL(url, host) { return 'DIRECT'; }")
        let request = HTTPRequest(url: URL(string: "http://localhost:\(port)/echo")!)
        request.pacURL = pac
        request.proxyHost = "127.0.0.1"
        request.proxyPort = port
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseHeaders["X-Courier-Proxied"], "1")
    }

    func testABrokenPACFileFailsTheRequestClearly() throws {
        let broken: [(source: String, says: String)] = [
            ("function FindProxyForURL(url, host) { return 'DIRECT';", "SyntaxError"),
            ("function findProxy(url, host) { return 'DIRECT'; }", "defines no function FindProxyForURL"),
            ("function FindProxyForURL(url, host) { throw new Error('no route'); }", "threw Error: no route"),
            ("function FindProxyForURL(url, host) { return null; }", "returned null, which is not a string"),
            ("function FindProxyForURL(url, host) { return 'NOWHERE'; }", "names no proxy and not DIRECT"),
        ]
        for (index, (source, says)) in broken.enumerated() {
            let marker = Route.headers(["X-PAC-Case": "\(index)-\(UUID())"])
            let request = get(Fixture.url(marker), pac: try writePAC(source))
            let error = try XCTUnwrap(request.error, source)
            XCTAssertEqual(error.type, .internalErrorWhileBuildingRequest, source)
            XCTAssertTrue(error.message.hasPrefix("The PAC file file://"), error.message)
            XCTAssertTrue(error.message.contains(says), "\(error.message) should say \(says)")
            XCTAssertEqual(Fixture.server.recordedRequests(for: marker).count, 0, "nothing was sent for \(source)")
        }
    }

    func testAPACFileServedBrokenOverHTTPFailsTheRequest() throws {
        let pac = Fixture.url(.text("function FindProxyForURL(url, host) { return 7; }"))
        let request = get(Fixture.url(.echo), pac: pac)
        XCTAssertEqual(request.error?.type, .internalErrorWhileBuildingRequest)
        XCTAssertTrue(
            request.error?.message.contains("returned 7, which is not a string") ?? false,
            "\(String(describing: request.error))")
    }

    func testAPACFileThatCannotBeFetchedMeansNoProxy() throws {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let unreachable = [
            Fixture.refusedURL.appendingPathComponent("proxy.pac"),
            Fixture.url(.status(404)),
            directory.appendingPathComponent("missing.pac"),
        ]
        for pac in unreachable {
            let request = get(URL(string: "http://localhost:\(port)/echo")!, pac: pac)
            XCTAssertNil(request.error, "\(pac)")
            XCTAssertEqual(request.responseStatusCode, 200, "\(pac)")
            XCTAssertNil(request.responseHeaders["X-Courier-Proxied"], "\(pac): no proxy")
        }
        let said = log.all.filter { $0.contains("could not be read") && $0.contains("going without a proxy") }
        XCTAssertEqual(said.count, unreachable.count, "\(log.all)")
    }

    func testAPACFileTooSlowForTheTimeoutMeansNoProxy() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.pacURL = Fixture.url(.stall)
        request.timeOutSeconds = 0.5
        let started = Date()
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }

    func testARequestCancelledWhileItsPACFileIsFetchedFailsAtOnce() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.pacURL = Fixture.url(.stall)
        request.timeOutSeconds = 3
        let failed = expectation(description: "failed")
        request.callbackQueue = DispatchQueue(label: "pac-cancel")
        request.setFailedBlock { _ in failed.fulfill() }
        request.startAsynchronous()
        Thread.sleep(forTimeInterval: 0.2)
        request.cancel()
        wait(for: [failed], timeout: 1)
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertEqual(request.responseStatusCode, 0, "no attempt was made")
    }

    func testAProxyThatIsDownWithNoOtherChoiceFailsAndNeverGoesDirect() throws {
        let refused = Fixture.refusedURL.port!
        let pac = try writePAC("function FindProxyForURL(url, host) { return 'PROXY 127.0.0.1:\(refused)'; }")
        let request = get(Fixture.url(.echo), pac: pac)
        XCTAssertEqual(request.error?.type, .connectionFailure, "a proxy that is down never becomes a direct connection")
        let (address, next) = request.state.withLock { state in
            (HTTPRequest.effectiveProxyAddress(state, for: state.config.url), HTTPRequest.advanceToNextPACChoice(&state))
        }
        XCTAssertEqual(address, ProxyAddress(host: "127.0.0.1", port: refused), "credentials are keyed by the PAC proxy")
        XCTAssertNil(next, "no choice after the last")
    }

    func testAProxyThatIsDownFallsToTheNextChoice() throws {
        let refused = Fixture.refusedURL.port!
        let port = Fixture.server.port
        let pac = try writePAC(
            "function FindProxyForURL(u, h) { return 'PROXY 127.0.0.1:\(refused); PROXY 127.0.0.1:\(port)'; }")
        let request = get(URL(string: "http://localhost:\(port)/echo")!, pac: pac)
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseHeaders["X-Courier-Proxied"], "1")
    }

    func testAProxyThatIsDownFallsToDirectWhenThePACFileSaysSo() throws {
        let refused = Fixture.refusedURL.port!
        let pac = try writePAC("function FindProxyForURL(url, host) { return 'PROXY 127.0.0.1:\(refused); DIRECT'; }")
        let request = get(Fixture.url(.echo), pac: pac)
        XCTAssertNil(request.error)
        XCTAssertNil(request.responseHeaders["X-Courier-Proxied"], "direct, as the file's second choice says")
    }

    // MARK: - The proxy chosen, as ASI filled it in

    /// `proxyHost`, `proxyPort` and `proxyType` of a finished request.
    private func reportedProxy(_ request: HTTPRequest) -> ReportedProxy {
        ReportedProxy(host: request.proxyHost, port: request.proxyPort, type: request.proxyType)
    }

    private struct ReportedProxy: Equatable {
        var host: String?
        var port: Int
        var type: ProxyType
    }

    func testThatARequestRoutedByThePACFileReportsTheProxyItChoseAndNoneForDirect() throws {
        let pac = try writePAC(proxyForLocalhost)
        let request = HTTPRequest(url: URL(string: "http://localhost:\(port)/echo")!)
        request.pacURL = pac
        XCTAssertEqual(reportedProxy(request), ReportedProxy(host: nil, port: 0, type: .http), "nothing chosen yet")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseHeaders["X-Courier-Proxied"], "1")
        XCTAssertEqual(reportedProxy(request), ReportedProxy(host: "127.0.0.1", port: port, type: .http))

        let direct = get(Fixture.url(.echo), pac: pac)
        XCTAssertNil(direct.error)
        XCTAssertNil(direct.responseHeaders["X-Courier-Proxied"])
        XCTAssertEqual(
            reportedProxy(direct), ReportedProxy(host: nil, port: 0, type: .http),
            "DIRECT: no host, port 0, and the type as it was")
    }

    func testThatTheProxyReportedIsTheChoiceTheFinalAttemptUsed() throws {
        let refused = Fixture.refusedURL.port!
        let next = try writePAC(
            "function FindProxyForURL(u, h) { return 'PROXY 127.0.0.1:\(refused); PROXY 127.0.0.1:\(port)'; }")
        let proxied = get(URL(string: "http://localhost:\(port)/echo")!, pac: next)
        XCTAssertNil(proxied.error)
        XCTAssertEqual(reportedProxy(proxied), ReportedProxy(host: "127.0.0.1", port: port, type: .http))

        let direct = get(
            Fixture.url(.echo),
            pac: try writePAC("function FindProxyForURL(u, h) { return 'PROXY 127.0.0.1:\(refused); DIRECT'; }"))
        XCTAssertNil(direct.error)
        XCTAssertEqual(reportedProxy(direct), ReportedProxy(host: nil, port: 0, type: .http))

        let down = get(
            Fixture.url(.echo),
            pac: try writePAC("function FindProxyForURL(u, h) { return 'PROXY 127.0.0.1:\(refused)'; }"))
        XCTAssertEqual(down.error?.type, .connectionFailure)
        XCTAssertEqual(
            reportedProxy(down), ReportedProxy(host: "127.0.0.1", port: refused, type: .http), "the proxy that failed")

        // A redirect hop asks the file again: the last hop's choice is reported.
        let hop = HTTPRequest(url: Fixture.url(.redirect(302, to: "http://localhost:\(port)/echo")))
        hop.pacURL = try writePAC(proxyForLocalhost)
        hop.startSynchronous()
        XCTAssertEqual(hop.responseHeaders["X-Courier-Proxied"], "1")
        XCTAssertEqual(reportedProxy(hop), ReportedProxy(host: "127.0.0.1", port: port, type: .http))
    }

    func testThatEachKindOfPACEntryIsReportedAsTheProxyTypeItWasUsedAs() throws {
        let kinds: [(entry: String, type: ProxyType, port: Int)] = [
            ("PROXY", .http, 80), ("HTTP", .http, 80), ("HTTPS", .https, 443),
            ("SOCKS", .socks4, 1080), ("SOCKS4", .socks4, 1080), ("SOCKS5", .socks5h, 1080),
        ]
        for kind in kinds {
            let request = HTTPRequest(url: URL(string: "http://a.example/")!)
            request.pacURL = URL(fileURLWithPath: "/proxy.pac")
            let choices = PACChoice.parse("\(kind.entry) proxy.example").choices
            request.state.withLock { $0.pac = PACRequestState(key: "http://a.example/", decision: .choices(choices)) }
            XCTAssertEqual(
                reportedProxy(request), ReportedProxy(host: "proxy.example", port: kind.port, type: kind.type),
                kind.entry)
        }
    }

    func testThatAProxySetByHandIsReportedAsSetAndTheCopyOfAPACRequestAsksTheFileAgain() throws {
        let pac = try writePAC("function FindProxyForURL(url, host) { return 'DIRECT'; }")
        let manual = HTTPRequest(url: URL(string: "http://localhost:\(port)/echo")!)
        manual.pacURL = pac
        manual.proxyHost = "127.0.0.1"
        manual.proxyPort = port
        manual.startSynchronous()
        XCTAssertEqual(reportedProxy(manual), ReportedProxy(host: "127.0.0.1", port: port, type: .http))

        let routed = get(URL(string: "http://localhost:\(port)/echo")!, pac: try writePAC(proxyForLocalhost))
        XCTAssertEqual(routed.proxyHost, "127.0.0.1")
        let copy = routed.copy()
        copy.url = Fixture.url(.echo)
        copy.startSynchronous()
        XCTAssertNil(copy.error)
        XCTAssertNil(copy.responseHeaders["X-Courier-Proxied"], "the copy's own URL goes direct, as the file says")
        XCTAssertEqual(reportedProxy(copy), ReportedProxy(host: nil, port: 0, type: .http))
    }

    func testOnlyAnAttemptThatNeverReachedItsProxyMovesOn() {
        let proxied = TransferConfiguration(
            url: "http://a.example/", method: "GET", headerLines: [], usesHTTP10: false, inactivityTimeout: 10,
            authentication: TransferAuthentication(server: nil, proxy: "http://127.0.0.1:1", proxyCredentials: nil))
        var direct = proxied
        direct.authentication = TransferAuthentication(server: nil, proxy: "", proxyCredentials: nil)
        func outcome(
            _ type: NetworkErrorType, curlCode: Int?, connect: Double = 0, head: Bool = false
        ) -> TransferOutcome {
            TransferOutcome(
                failure: HTTPRequestError(type: type, message: "", curlCode: curlCode),
                head: head
                    ? ResponseHead(statusCode: 200, statusLine: "HTTP/1.1 200 OK", headerBlock: RawHeaderBlock()) : nil,
                body: Data(), bytesReceived: 0, bytesSent: 0, metrics: RequestMetrics(connect: connect),
                redirectURL: nil)
        }
        XCTAssertTrue(HTTPRequest.failedToReachProxy(outcome(.connectionFailure, curlCode: 7), through: proxied))
        XCTAssertTrue(HTTPRequest.failedToReachProxy(outcome(.connectionFailure, curlCode: 5), through: proxied))
        XCTAssertTrue(HTTPRequest.failedToReachProxy(outcome(.connectionFailure, curlCode: 97), through: proxied))
        XCTAssertTrue(HTTPRequest.failedToReachProxy(outcome(.requestTimedOut, curlCode: 28), through: proxied))
        XCTAssertFalse(
            HTTPRequest.failedToReachProxy(outcome(.requestTimedOut, curlCode: nil, connect: 0.01), through: proxied),
            "connected: the server may have the request")
        XCTAssertFalse(HTTPRequest.failedToReachProxy(outcome(.connectionFailure, curlCode: 56), through: proxied))
        XCTAssertFalse(
            HTTPRequest.failedToReachProxy(outcome(.connectionFailure, curlCode: 7, head: true), through: proxied))
        XCTAssertFalse(HTTPRequest.failedToReachProxy(outcome(.connectionFailure, curlCode: 7), through: direct))
    }

    func testTheURLGivenToTheScript() {
        XCTAssertEqual(
            PACResolver.key(for: URL(string: "http://u:p@a.example:81/x/y?q=1#f")!), "http://a.example:81/x/y?q=1")
        XCTAssertEqual(PACResolver.key(for: URL(string: "https://a.example/secret?token=1")!), "https://a.example/")
        XCTAssertNil(PACResolver.key(for: URL(string: "ftp://a.example/")!))
    }
}
