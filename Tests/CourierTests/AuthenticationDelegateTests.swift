import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// Supplies credentials when asked, and counts the questions. Main queue.
final class CredentialSupplier: HTTPRequestAuthenticationDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked; the answers are set before any request runs.
    let asked = EventLog()
    var answers: [(String, String)] = []
    var cancelsProxy = true

    func authenticationNeeded(for request: HTTPRequest) {
        asked.add("server \(request.authenticationRealm ?? "-")")
        guard !answers.isEmpty else { return request.cancelAuthentication() }
        let (user, password) = answers.count > 1 ? answers.removeFirst() : answers[0]
        request.username = user
        request.password = password
        request.retryUsingSuppliedCredentials()
    }

    func proxyAuthenticationNeeded(for request: HTTPRequest) {
        asked.add("proxy \(request.proxyAuthenticationRealm ?? "-")")
        guard !answers.isEmpty, !cancelsProxy else { return request.cancelAuthentication() }
        request.proxyUsername = answers[0].0
        request.proxyPassword = answers[0].1
        request.retryUsingSuppliedCredentials()
    }
}

/// Delegates, blocks and the queue's delegate supplying credentials; one question for many
/// requests; the proxy's 407.
final class AuthenticationDelegateTests: AuthenticationTestCase {
    private let basic = Route.basicAuth(user: "secret_username", password: "secret_password")

    func testThatTheDelegateSuppliesCredentialsAndTheRequestWaitsForThem() {
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "secret_password")]
        let request = request(basic)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(supplier.asked.all, ["server Courier"])
        XCTAssertEqual(request.authenticationRetryCount, 1)
    }

    func testThatWrongSuppliedCredentialsAreAskedForAgain() {
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "wrong"), ("secret_username", "wrong again"),
                            ("secret_username", "secret_password")]
        let request = request(basic)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(supplier.asked.all.count, 3, "asked again after each refusal")
    }

    func testThatCancelAuthenticationFailsTheRequest() {
        let supplier = CredentialSupplier()
        let request = request(basic)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(supplier.asked.all, ["server Courier"])
    }

    func testThatTheBlockIsAskedWhenThereIsNoDelegate() {
        let request = request(basic)
        request.setAuthenticationNeededBlock { request in
            request.username = "secret_username"
            request.password = "secret_password"
            request.retryUsingSuppliedCredentials()
        }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
    }

    func testThatASynchronousRequestNeverAsks() {
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "secret_password")]
        let request = request(basic)
        request.delegate = supplier
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(supplier.asked.all, [])
    }

    func testThatADelegateThatGoesAwayFailsTheWaitingRequest() {
        final class Silent: HTTPRequestAuthenticationDelegate {
            func authenticationNeeded(for request: HTTPRequest) {}
            func proxyAuthenticationNeeded(for request: HTTPRequest) {}
        }
        var silent: Silent? = Silent()
        let request = request(basic)
        request.delegate = silent
        request.startAsynchronous()
        waitUntil { self.server.challengesSent(for: self.basic) == 1 }
        spinMainQueue(for: 0.3)
        XCTAssertFalse(request.isFinished, "it waits for an answer")
        silent = nil
        waitUntil(timeout: 5) { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("went away") == true, "\(String(describing: request.error))")
    }

    func testThatTenConcurrentRequestsAskTheQueuesDelegateOnce() {
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "secret_password")]
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 10
        queue.delegate = supplier
        let requests = (0..<10).map { _ in request(basic) }
        for request in requests { queue.addOperation(request) }
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(requests.compactMap(\.error).map(\.message), [])
        XCTAssertEqual(supplier.asked.all, ["server Courier"], "one question; the others reused the answer")
    }

    func testThatAProxyAsksForItsOwnCredentials() throws {
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pu", password: "pp", scheme: .basic))
        defer { proxy.stop() }
        let request = HTTPRequest(url: server.url(.echo))
        request.proxyHost = "127.0.0.1"
        request.proxyPort = proxy.port
        request.shouldPresentProxyAuthenticationDialog = false
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("proxy") == true, "\(String(describing: request.error))")
        XCTAssertEqual(request.responseStatusCode, 407)

        let withCredentials = HTTPRequest(url: server.url(.echo))
        withCredentials.proxyHost = "127.0.0.1"
        withCredentials.proxyPort = proxy.port
        withCredentials.proxyUsername = "pu"
        withCredentials.proxyPassword = "pp"
        withCredentials.startSynchronous()
        XCTAssertNil(withCredentials.error)
        XCTAssertEqual(withCredentials.responseHeaders["X-Courier-Proxied"], "1")
        XCTAssertEqual(withCredentials.proxyAuthenticationRetryCount, 1)
        XCTAssertEqual(withCredentials.proxyAuthenticationRealm, "Courier proxy")
    }

    func testThatTheDelegateSuppliesProxyCredentials() throws {
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pu", password: "pp", scheme: .basic))
        defer { proxy.stop() }
        let supplier = CredentialSupplier()
        supplier.answers = [("pu", "pp")]
        supplier.cancelsProxy = false
        let request = HTTPRequest(url: server.url(.echo))
        request.proxyHost = "127.0.0.1"
        request.proxyPort = proxy.port
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(supplier.asked.all, ["proxy Courier proxy"])
    }
}
