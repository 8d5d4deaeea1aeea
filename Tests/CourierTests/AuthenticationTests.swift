import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// Basic, Digest and NTLM against the fixture server's authentication routes: ASI's credential
/// flow (asi-tests.md, testBasicAuthentication and its neighbours), the session store and the
/// credential file, over real sockets.
class AuthenticationTestCase: ServerTestCase {
    var credentialFile = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        HTTPRequest.clearSession()
        credentialFile = try makeTemporaryDirectory().appendingPathComponent("credentials").path
        PersistentCredentialStore.pathOverride.withLock { $0 = credentialFile }
    }

    override func tearDown() {
        HTTPRequest.clearSession()
        PersistentCredentialStore.pathOverride.withLock { $0 = nil }
        super.tearDown()
    }

    func request(_ route: Route, user: String? = nil, password: String? = nil) -> HTTPRequest {
        let request = HTTPRequest(url: server.url(route))
        request.username = user
        request.password = password
        request.timeOutSeconds = 10
        return request
    }
}

final class AuthenticationTests: AuthenticationTestCase {
    private let basic = Route.basicAuth(user: "secret_username", password: "secret_password")

    func testThatBasicCredentialsAnswerTheChallenge() {
        let request = request(basic, user: "secret_username", password: "secret_password")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.responseString(), "You are secret_username by Basic")
        XCTAssertEqual(request.authenticationScheme, "Basic")
        XCTAssertEqual(request.authenticationRealm, "Courier")
        XCTAssertEqual(request.authenticationRetryCount, 1, "sent again once, after the challenge")
        XCTAssertEqual(server.challengesSent(for: basic), 1)
    }

    func testThatNoCredentialsFailWithAuthenticationAndKeepTheResponse() {
        let request = request(basic)
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(
            request.error?.message.contains("none were available") == true, "\(String(describing: request.error))")
        XCTAssertEqual(request.responseStatusCode, 401, "the status is kept (ASI)")
        XCTAssertEqual(request.responseString(), "credentials required", "and the body")
    }

    func testThatWrongCredentialsAreRefusedOnceAndNeverLoop() {
        let request = request(basic, user: "secret_username", password: "wrong")
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("refused") == true, "\(String(describing: request.error))")
        XCTAssertEqual(server.challengesSent(for: basic), 2, "asked once, answered once, refused: no loop")
        XCTAssertEqual(request.authenticationRetryCount, 1)
    }

    func testThatDigestWithQopAuthAndAuthIntWorks() {
        for qop in ["auth", "auth-int"] {
            let route = Route.digestAuth(user: "secret_username", password: "secret_password", qop: qop)
            let request = request(route, user: "secret_username", password: "secret_password")
            request.startSynchronous()
            XCTAssertNil(request.error, qop)
            XCTAssertEqual(request.responseString(), "You are secret_username by Digest", qop)
            XCTAssertEqual(request.authenticationScheme, "Digest", qop)
        }
    }

    func testThatWrongDigestCredentialsAreRefused() {
        let route = Route.digestAuth(user: "secret_username", password: "secret_password")
        let request = request(route, user: "secret_username", password: "wrong")
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertTrue(request.error?.message.contains("refused") == true, "\(String(describing: request.error))")
    }

    func testThatTheStrongerSchemeIsUsedWhenBothAreOffered() {
        let route = Route.bothAuth(user: "secret_username", password: "secret_password")
        let request = request(route, user: "secret_username", password: "secret_password")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseHeaders["X-Courier-Auth-Scheme"], "Digest")
        XCTAssertEqual(request.authenticationScheme, "Digest")
    }

    func testThatAStaleNonceIsAnsweredAgainWithoutAsking() {
        let route = Route.digestAuth(user: "secret_username", password: "secret_password", stale: true)
        let request = request(route, user: "secret_username", password: "secret_password")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "You are secret_username by Digest")
        let authorizations = server.authorizations(for: route)
        XCTAssertEqual(authorizations.map { $0 != nil }, [false, true, true], "asked, stale, accepted: no probe")
    }

    func testThatNTLMWithADomainWorksAndAWrongPasswordIsRefused() {
        let route = Route.ntlmAuth(user: "nina", password: "s3cret", domain: "ACME")
        // Wrong first: the route trusts a connection once a handshake on it succeeded.
        let wrong = self.request(route, user: "nina", password: "nope")
        wrong.domain = "ACME"
        wrong.startSynchronous()
        XCTAssertEqual(wrong.error?.type, .authentication)

        let request = request(route, user: "nina", password: "s3cret")
        request.domain = "ACME"
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "You are nina from ACME/WORKSTATION")
        XCTAssertEqual(request.authenticationScheme, "NTLM")
    }

    func testThatADomainIsSentWithNTLMOnlyNotWithBasicOrDigest() {
        for route in [basic, .digestAuth(user: "secret_username", password: "secret_password")] {
            let request = request(route, user: "secret_username", password: "secret_password")
            request.domain = "ACME"
            request.startSynchronous()
            XCTAssertNil(request.error, route.path)
            XCTAssertEqual(request.responseStatusCode, 200, "\(route.path): the user name without the domain")
            XCTAssertEqual(request.responseString()?.hasPrefix("You are secret_username by "), true, route.path)
        }
    }

    func testThatCredentialsInTheURLWorkAndAreNotSentAsWritten() throws {
        var components = try XCTUnwrap(URLComponents(url: server.url(basic), resolvingAgainstBaseURL: false))
        components.user = "secret_username"
        components.password = "secret_password"
        let request = HTTPRequest(url: try XCTUnwrap(components.url))
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseString(), "You are secret_username by Basic")
    }

    func testThatABodyIsSentAgainAfterTheChallenge() {
        for scheme in ["basic", "digest"] {
            let route = Route.postAuth(user: "u", password: "p", scheme: scheme)
            let request = request(route, user: "u", password: "p")
            request.appendPostData(Data("This is the first item\r\nThis is the second item".utf8))
            request.startSynchronous()
            XCTAssertNil(request.error, scheme)
            XCTAssertEqual(request.responseString(), "This is the first item\r\nThis is the second item", scheme)
        }
    }

    func testThatNoCredentialAppearsInTheLog() throws {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        defer { HTTPRequest.logHandler = nil }
        var components = try XCTUnwrap(URLComponents(url: server.url(basic), resolvingAgainstBaseURL: false))
        components.user = "secret_username"
        components.password = "secret_password"
        let fromURL = HTTPRequest(url: try XCTUnwrap(components.url))
        fromURL.startSynchronous()
        let own = request(.digestAuth(user: "secret_username", password: "secret_password"))
        own.username = "secret_username"
        own.password = "secret_password"
        own.startSynchronous()
        XCTAssertNil(fromURL.error)
        XCTAssertNil(own.error)
        XCTAssertFalse(log.all.isEmpty)
        // The routes' paths name the password they expect; what must not appear is the password
        // as sent: in the URL's user part, in a Basic value, in a Digest response.
        for line in log.all {
            XCTAssertFalse(line.contains(":secret_password@"), line)
            XCTAssertFalse(line.contains("response="), line)
            XCTAssertFalse(line.contains("c2VjcmV0X3VzZXJuYW1lOnNlY3JldF9wYXNzd29yZA"), "no Basic value: \(line)")
        }
    }

    func testThatAnAuthenticationRetryTakesBackTheBytesTheRefusedAttemptSent() {
        let body = Data(repeating: 0x61, count: 200_000)
        let request = request(.postAuth(user: "u", password: "p"), user: "u", password: "p")
        request.appendPostData(body)
        let progress = RecordingProgress()
        request.uploadProgressDelegate = progress
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData(), body, "the body went again, whole")
        // The refused attempt's bytes, when they were reported before the retry began, are taken
        // back with a negative delta (ASI): the running total never passes the body's length.
        let sent = progress.current.sent
        var total: Int64 = 0
        for delta in sent {
            total += delta
            XCTAssertLessThanOrEqual(total, Int64(body.count), "counted twice: \(sent)")
        }
        XCTAssertEqual(total, Int64(body.count))
    }

    func testThatAnEndlessChallengeEndsInAFailure() {
        let request = request(.endlessAuth, user: "a", password: "b")
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(server.challengesSent(for: .endlessAuth), 2)
    }
}

/// The session store and the credential file: reuse, never another host or port, forgetting.
final class CredentialReuseTests: AuthenticationTestCase {
    private let basic = Route.basicAuth(user: "secret_username", password: "secret_password")

    func testThatSessionCredentialsGoOutBeforeTheChallenge() {
        request(basic, user: "secret_username", password: "secret_password").startSynchronous()
        let again = request(basic)
        again.startSynchronous()
        XCTAssertNil(again.error)
        XCTAssertEqual(again.authenticationRetryCount, 0, "presented before the challenge")
        XCTAssertEqual(server.challengesSent(for: basic), 1, "only the first request was challenged")

        let notFirst = request(basic)
        notFirst.shouldPresentCredentialsBeforeChallenge = false
        notFirst.startSynchronous()
        XCTAssertNil(notFirst.error)
        XCTAssertEqual(notFirst.authenticationRetryCount, 1, "from the session store after the challenge")
    }

    func testThatSessionCredentialsNeverGoToAnotherPort() throws {
        request(basic, user: "secret_username", password: "secret_password").startSynchronous()
        let other = try TestServer()
        defer { other.stop() }
        let elsewhere = HTTPRequest(url: other.url(basic))
        elsewhere.startSynchronous()
        XCTAssertEqual(elsewhere.error?.type, .authentication)
        XCTAssertEqual(other.authorizations(for: basic), [nil], "nothing was sent to the other port")
    }

    func testThatOwnCredentialsDoNotFollowARedirectToAnotherHost() throws {
        let other = try TestServer()
        defer { other.stop() }
        let target = other.url(basic)
        let request = HTTPRequest(url: server.url(.redirect(302, to: target.absoluteString)))
        request.username = "secret_username"
        request.password = "secret_password"
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(other.authorizations(for: basic), [nil])
    }

    func testThatSessionPersistenceOffNeitherUsesNorSaves() {
        let first = request(basic, user: "secret_username", password: "secret_password")
        first.useSessionPersistence = false
        first.startSynchronous()
        XCTAssertNil(first.error)
        let second = request(basic)
        second.startSynchronous()
        XCTAssertEqual(second.error?.type, .authentication, "nothing was saved")
    }

    func testThatClearSessionForgetsCredentials() {
        request(basic, user: "secret_username", password: "secret_password").startSynchronous()
        HTTPRequest.clearSession()
        let request = request(basic)
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
    }

    func testThatAuthenticationSchemeBasicSendsOwnCredentialsFirst() {
        let request = request(basic, user: "secret_username", password: "secret_password")
        request.authenticationScheme = "Basic"
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.authenticationRetryCount, 0)
        XCTAssertEqual(server.challengesSent(for: basic), 0)
    }

    func testThatTheCredentialFileSuppliesAndKeepsCredentials() throws {
        let first = request(basic, user: "secret_username", password: "secret_password")
        first.useKeychainPersistence = true
        first.startSynchronous()
        XCTAssertNil(first.error)
        let mode = try FileManager.default.attributesOfItem(atPath: credentialFile)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        HTTPRequest.clearSession()

        let withoutFile = request(basic)
        withoutFile.startSynchronous()
        XCTAssertEqual(withoutFile.error?.type, .authentication, "the file is read only when asked")

        let fromFile = request(basic)
        fromFile.useKeychainPersistence = true
        fromFile.startSynchronous()
        XCTAssertNil(fromFile.error)
        XCTAssertEqual(fromFile.authenticationRetryCount, 1, "the file's credentials never go out before a challenge")
    }
}
