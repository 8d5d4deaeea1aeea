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
        supplier.answers = [
            ("secret_username", "wrong"), ("secret_username", "wrong again"),
            ("secret_username", "secret_password"),
        ]
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

    func testThatCancellingOneQuestionCancelsTheWaitingRequestsWithoutAskingThem() {
        let supplier = CredentialSupplier()
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 5
        queue.delegate = supplier
        XCTAssertTrue(queue.shouldCancelAllRequestsOnFailure)
        let requests = (0..<5).map { _ in request(basic) }
        for request in requests { queue.addOperation(request) }
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(supplier.asked.all, ["server Courier"], "the others waited, then were cancelled")
        let types = requests.compactMap { $0.error?.type }
        XCTAssertEqual(types.count, 5)
        XCTAssertEqual(types.filter { $0 == .authentication }.count, 1, "\(types)")
        XCTAssertEqual(types.filter { $0 == .requestCancelled }.count, 4, "\(types)")
    }

    func testThatSuppliedDigestCredentialsAnswerTheChallengeAlreadyReceived() {
        let route = Route.digestAuth(user: "secret_username", password: "secret_password", stale: true)
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "secret_password")]
        let request = request(route)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "You are secret_username by Digest")
        XCTAssertEqual(supplier.asked.all, ["server Courier"])
        // The challenge, its answer (declared stale), the answer to the fresh nonce: no request
        // without credentials in between to fetch a challenge the request already had.
        XCTAssertEqual(server.authorizations(for: route).map { $0 != nil }, [false, true, true])
    }

    func testThatABodyGoesOutOnceMoreWhenTheBlockSuppliesDigestCredentials() {
        let route = Route.postAuth(user: "u", password: "p", scheme: "digest")
        let body = Data("This is the first item\r\nThis is the second item".utf8)
        let request = request(route)
        request.appendPostData(body)
        request.setAuthenticationNeededBlock { request in
            request.username = "u"
            request.password = "p"
            request.retryUsingSuppliedCredentials()
        }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData(), body)
        let sent = server.recordedRequests(for: route)
        XCTAssertEqual(sent.map { $0.header("Authorization") != nil }, [false, true], "the challenge, then its answer")
        XCTAssertEqual(sent.map(\.body), [body, body])
    }

    func testThatCredentialsTheServerRefusedFailTheRequestWhenTheDelegateSuppliesThemAgain() {
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "secret_password")]
        let request = request(.endlessAuth)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("refused") == true, "\(String(describing: request.error))")
        XCTAssertEqual(server.challengesSent(for: .endlessAuth), 2, "asked, answered and refused: never sent again")
        XCTAssertEqual(supplier.asked.all.count, 2, "asked again after the refusal, then failed at the same answer")
    }

    func testThatCredentialsTheServerRefusedFailTheRequestWhenTheBlockSuppliesThemAgain() {
        let asked = EventLog()
        let request = request(.endlessAuth)
        request.setAuthenticationNeededBlock { request in
            asked.add("server")
            request.username = "secret_username"
            request.password = "secret_password"
            request.retryUsingSuppliedCredentials()
        }
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(server.challengesSent(for: .endlessAuth), 2)
        XCTAssertEqual(asked.all.count, 2)
    }

    func testThatOwnCredentialsTheServerRefusedAreNotSentAgainWhenTheDelegateSuppliesThem() {
        let supplier = CredentialSupplier()
        supplier.answers = [("secret_username", "wrong")]
        let request = request(basic, user: "secret_username", password: "wrong")
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(server.authorizations(for: basic).map { $0 != nil }, [false, true])
        XCTAssertEqual(supplier.asked.all.count, 1)
    }

    /// A fixture server acting as a proxy that wants `scheme` credentials pu/pp.
    private func makeProxy(_ scheme: ProxyCredentials.Scheme = .basic) throws -> TestServer {
        try TestServer(proxyCredentials: ProxyCredentials(user: "pu", password: "pp", scheme: scheme))
    }

    /// A request for `route` (the echo) through `proxy`, with its credentials when `credentials`.
    private func throughProxy(_ proxy: TestServer, to route: Route = .echo, credentials: Bool = false) -> HTTPRequest {
        let request = HTTPRequest(url: server.url(route))
        request.proxyHost = "127.0.0.1"
        request.proxyPort = proxy.port
        request.shouldPresentProxyAuthenticationDialog = false
        if credentials {
            request.proxyUsername = "pu"
            request.proxyPassword = "pp"
        }
        return request
    }

    func testThatAProxyWantingDigestGetsIt() throws {
        let proxy = try makeProxy(.digest)
        defer { proxy.stop() }
        let request = throughProxy(proxy, credentials: true)
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseHeaders["X-Courier-Proxied"], "1")
        XCTAssertEqual(request.proxyAuthenticationScheme, "Digest")
    }

    func testThatAProxyAndAServerBothAuthenticate() throws {
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let request = throughProxy(proxy, to: basic, credentials: true)
        request.username = "secret_username"
        request.password = "secret_password"
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "You are secret_username by Basic")
        XCTAssertEqual(request.proxyAuthenticationRetryCount, 1)
        XCTAssertEqual(request.authenticationRetryCount, 1)
    }

    /// The proxy took its credentials and the server then asked for its own: the proxy's go to
    /// the credential file at the server's 401 (before, only a response without a challenge
    /// saved them, and after a 401 the proxy's were no longer the attempt's to save).
    func testThatProxyCredentialsThatWorkedBeforeAServersChallengeReachTheCredentialFile() throws {
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let request = throughProxy(proxy, to: basic, credentials: true)
        request.username = "secret_username"
        request.password = "secret_password"
        request.useKeychainPersistence = true
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.proxyAuthenticationRetryCount, 1)
        XCTAssertEqual(request.authenticationRetryCount, 1)
        let saved = try PersistentCredentialStore.proxyCredential(
            host: "127.0.0.1", port: Int(proxy.port), realm: "Courier proxy")
        XCTAssertEqual(saved?.user, "pu")
        XCTAssertEqual(saved?.password, "pp")
    }

    func testThatAProxyAsksForItsOwnCredentials() throws {
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let request = throughProxy(proxy)
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("proxy") == true, "\(String(describing: request.error))")
        XCTAssertEqual(request.responseStatusCode, 407)

        let withCredentials = throughProxy(proxy, credentials: true)
        withCredentials.startSynchronous()
        XCTAssertNil(withCredentials.error)
        XCTAssertEqual(withCredentials.responseHeaders["X-Courier-Proxied"], "1")
        XCTAssertEqual(withCredentials.proxyAuthenticationRetryCount, 1)
        XCTAssertEqual(withCredentials.proxyAuthenticationRealm, "Courier proxy")
    }

    func testThatProxyCredentialsThatWorkedGoOutBeforeTheNextChallenge() throws {
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let first = throughProxy(proxy, credentials: true)
        first.startSynchronous()
        XCTAssertNil(first.error)
        XCTAssertEqual(proxy.proxyChallengesSent, 1)
        let second = throughProxy(proxy)
        second.startSynchronous()
        XCTAssertNil(second.error)
        XCTAssertEqual(second.proxyAuthenticationRetryCount, 0)
        XCTAssertEqual(proxy.proxyChallengesSent, 1, "the session's proxy credentials went out at once")
    }

    func testThatTheDelegateSuppliesProxyCredentials() throws {
        let proxy = try makeProxy()
        defer { proxy.stop() }
        let supplier = CredentialSupplier()
        supplier.answers = [("pu", "pp")]
        supplier.cancelsProxy = false
        let request = throughProxy(proxy)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(supplier.asked.all, ["proxy Courier proxy"])
    }
}

/// The terminal dialog in the request flow, under a pseudo-terminal standing in for /dev/tty.
final class AuthenticationDialogTests: AuthenticationTestCase {
    override func tearDown() {
        TerminalAuthenticationDialog.terminalPathOverride.withLock { $0 = nil }
        super.tearDown()
    }

    private func useTerminal() throws -> Terminal {
        let terminal = try Terminal()
        let path = try XCTUnwrap(ttyname(terminal.slave).map { String(cString: $0) })
        TerminalAuthenticationDialog.terminalPathOverride.withLock { $0 = path }
        return terminal
    }

    func testThatTheDialogSuppliesCredentialsTypedOnTheTerminal() throws {
        let terminal = try useTerminal()
        let route = Route.basicAuth(user: "secret_username", password: "secret_password")
        let request = request(route)
        request.shouldPresentAuthenticationDialog = true
        request.startAsynchronous()
        try terminal.type([("User name: ", "secret_username\n"), ("Password: ", "secret_password\n")])
        waitUntil(timeout: 10) { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "You are secret_username by Basic")
        XCTAssertTrue(terminal.screen.contains("127.0.0.1:\(server.port)"), terminal.screen)
        XCTAssertTrue(terminal.screen.contains("in the clear"), "Basic without TLS: \(terminal.screen)")
        XCTAssertFalse(terminal.screen.contains("secret_password\r\n"), "the password was not echoed")
    }

    func testThatCredentialsTheServerRefusedFailTheRequestWhenTypedAgain() throws {
        let terminal = try useTerminal()
        let request = request(.endlessAuth)
        request.shouldPresentAuthenticationDialog = true
        request.startAsynchronous()
        let answer = [("User name: ", "secret_username\n"), ("Password: ", "secret_password\n")]
        try terminal.type(answer + answer)
        waitUntil(timeout: 10) { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(server.challengesSent(for: .endlessAuth), 2, "the answer typed again was not sent again")
    }

    func testThatASynchronousRequestMayUseTheDialog() throws {
        let terminal = try useTerminal()
        let route = Route.digestAuth(user: "secret_username", password: "secret_password")
        let request = request(route)
        request.shouldPresentAuthenticationDialog = true
        let typist = Thread {
            try? terminal.type([("User name: ", "secret_username\n"), ("Password: ", "secret_password\n")])
        }
        typist.start()
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.authenticationScheme, "Digest")
    }

    func testThatAnEmptyAnswerFailsTheRequest() throws {
        let terminal = try useTerminal()
        let request = request(.basicAuth(user: "secret_username", password: "secret_password"))
        request.shouldPresentAuthenticationDialog = true
        request.startAsynchronous()
        try terminal.type([("User name: ", "\n")])
        waitUntil(timeout: 10) { request.isFinished }
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("terminal") == true, "\(String(describing: request.error))")
    }

    func testThatTheProxyDialogIsOnByDefault() throws {
        let terminal = try useTerminal()
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pu", password: "pp", scheme: .basic))
        defer { proxy.stop() }
        let request = HTTPRequest(url: server.url(.echo))
        request.proxyHost = "127.0.0.1"
        request.proxyPort = proxy.port
        request.startAsynchronous()
        try terminal.type([("User name: ", "pu\n"), ("Password: ", "pp\n")])
        waitUntil(timeout: 10) { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertTrue(terminal.screen.contains("proxy"), terminal.screen)
        XCTAssertEqual(request.responseHeaders["X-Courier-Proxied"], "1")
    }

    func testThatTheDialogIsNotAskedWhenItIsOff() throws {
        _ = try useTerminal()
        let request = request(.basicAuth(user: "secret_username", password: "secret_password"))
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication, "shouldPresentAuthenticationDialog is off by default")
    }
}
