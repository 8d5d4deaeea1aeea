import XCTest

@testable import Courier

/// The 401 and 407 ladders, climbed without a socket: which scheme is answered, where credentials
/// are looked for and in which order, refused credentials, a stale nonce, the delegate, the
/// dialog and the failure, for the server and for the proxy.
final class ChallengeLadderTests: XCTestCase {
    private let alice = StoredCredential(user: "alice", password: "secret")
    private let bob = StoredCredential(user: "bob", password: "hunter2")

    private func challenges(_ values: String...) -> [AuthenticationChallenge] {
        AuthenticationChallenge.parse(values)
    }

    private func presented(_ method: AuthenticationMethod?, source: CredentialSource = .request) -> PresentedCredential
    {
        PresentedCredential(credential: alice, method: method, source: source, answersChallenge: true)
    }

    private func server(
        session: Bool = true, file: Bool = false, dialog: Bool = false
    ) -> ChallengeLadder {
        ChallengeLadder(isProxy: false, usesSessionStore: session, usesCredentialFile: file, presentsDialog: dialog)
    }

    private func read(
        _ ladder: ChallengeLadder, _ values: [AuthenticationChallenge], retries: Int = 0,
        presented: PresentedCredential? = nil, retriedStale: Bool = false
    ) -> ChallengeLadder.Reading {
        ladder.read(values, retriesSoFar: retries, presented: presented, hasRetriedStaleNonce: retriedStale)
    }

    // MARK: - Which scheme

    func testThatTheStrongestSchemeOfferedIsAnswered() {
        let reading = read(server(), challenges("Basic realm=\"a\", Digest realm=\"a\", nonce=\"n\""))
        guard case .answer(let challenge, .unjudged) = reading else { return XCTFail("\(reading)") }
        XCTAssertEqual(challenge.method, .digest)
        XCTAssertEqual(challenge.realm, "a")
    }

    func testThatNTLMIsPreferredToBasic() {
        guard case .answer(let challenge, _) = read(server(), challenges("Basic realm=\"a\"", "NTLM")) else {
            return XCTFail()
        }
        XCTAssertEqual(challenge.method, .ntlm)
    }

    func testThatAChallengeInAnUnknownSchemeFailsNamingIt() {
        XCTAssertEqual(
            read(server(), challenges("Bearer realm=\"api\"", "Negotiate")),
            .fail("The server asked for credentials with a scheme Courier does not speak (Bearer, Negotiate)"))
    }

    func testThatA401WithoutAChallengeFails() {
        XCTAssertEqual(read(server(), []), .fail("The server answered 401 without a challenge Courier can answer"))
    }

    func testThatA407WithoutAChallengeSaysProxy() {
        let proxy = ChallengeLadder(isProxy: true, settings: AuthenticationSettings())
        XCTAssertEqual(read(proxy, []), .fail("The proxy answered 407 without a challenge Courier can answer"))
    }

    func testThatTheRequestGivesUpAfterTwentyRetriesOfBothSides() {
        let values = challenges("Basic realm=\"a\"")
        guard case .answer = read(server(), values, retries: ChallengeLadder.maximumRetries - 1) else {
            return XCTFail()
        }
        XCTAssertEqual(
            read(server(), values, retries: ChallengeLadder.maximumRetries),
            .fail("The server kept asking for credentials: gave up after 20 tries"))
    }

    // MARK: - What was presented

    func testThatNothingPresentedIsNotARefusal() {
        guard case .answer(_, let verdict) = read(server(), challenges("Basic realm=\"a\"")) else { return XCTFail() }
        XCTAssertEqual(verdict, .unjudged)
    }

    func testThatCredentialsPresentedForTheSchemeAskedForWereRefused() {
        guard
            case .answer(_, let verdict) = read(server(), challenges("Basic realm=\"a\""), presented: presented(.basic))
        else { return XCTFail() }
        XCTAssertEqual(verdict, .refused)
    }

    func testThatCredentialsPresentedWithoutAMethodWereRefused() {
        // libcurl answered whichever scheme the server asked for with them.
        guard
            case .answer(_, let verdict) = read(
                server(), challenges("Digest realm=\"a\", nonce=\"n\""), presented: presented(nil))
        else { return XCTFail() }
        XCTAssertEqual(verdict, .refused)
    }

    func testThatBasicSentWhereDigestIsAskedForWasNotJudged() {
        let reading = read(
            server(), challenges("Digest realm=\"a\", nonce=\"n\""), presented: presented(.basic, source: .session))
        guard case .answer(_, let verdict) = reading else { return XCTFail() }
        XCTAssertEqual(verdict, .unjudged)
    }

    func testThatAStaleDigestNonceIsAnsweredAgainOnce() {
        let stale = challenges("Digest realm=\"a\", nonce=\"n2\", stale=true")
        guard case .answer(_, let first) = read(server(), stale, presented: presented(.digest)) else {
            return XCTFail()
        }
        XCTAssertEqual(first, .staleNonce)
        guard case .answer(_, let second) = read(server(), stale, presented: presented(.digest), retriedStale: true)
        else { return XCTFail() }
        XCTAssertEqual(second, .refused, "a second stale nonce is a refusal: no loop")
    }

    func testThatStaleOnABasicAnswerIsARefusal() {
        let stale = challenges("Digest realm=\"a\", nonce=\"n2\", stale=true")
        guard case .answer(_, let verdict) = read(server(), stale, presented: presented(nil)) else { return XCTFail() }
        XCTAssertEqual(verdict, .refused, "only credentials sent as Digest had a nonce to go stale")
    }

    // MARK: - Where to look

    func testThatTheServerLadderIsOwnThenSessionThenFile() {
        XCTAssertEqual(server(session: true, file: true).rungs, [.own, .sessionStore, .credentialFile])
    }

    func testThatTheSessionStoreIsSkippedWithoutSessionPersistence() {
        XCTAssertEqual(server(session: false, file: true).rungs, [.own, .credentialFile])
    }

    func testThatTheServerLadderReadsTheFileOnlyWithKeychainPersistence() {
        var settings = AuthenticationSettings()
        XCTAssertEqual(ChallengeLadder(isProxy: false, settings: settings).rungs, [.own, .sessionStore])
        settings.useKeychainPersistence = true
        XCTAssertEqual(
            ChallengeLadder(isProxy: false, settings: settings).rungs, [.own, .sessionStore, .credentialFile])
    }

    func testThatTheProxyLadderAlwaysReadsTheFile() {
        var settings = AuthenticationSettings()
        settings.useSessionPersistence = false
        XCTAssertEqual(ChallengeLadder(isProxy: true, settings: settings).rungs, [.own, .credentialFile])
    }

    func testThatRefusedCredentialsAreNeverOfferedAgain() {
        XCTAssertNil(ChallengeLadder.usable(alice, refused: [alice]))
        XCTAssertEqual(ChallengeLadder.usable(bob, refused: [alice]), bob)
        XCTAssertNil(ChallengeLadder.usable(nil, refused: []))
    }

    func testThatEachSideReadsItsOwnHeader() {
        XCTAssertEqual(server().challengeField, "WWW-Authenticate")
        XCTAssertEqual(
            ChallengeLadder(isProxy: true, settings: AuthenticationSettings()).challengeField, "Proxy-Authenticate")
    }

    func testThatEachSideHasItsOwnDialogSetting() {
        var settings = AuthenticationSettings()
        settings.shouldPresentAuthenticationDialog = false
        settings.shouldPresentProxyAuthenticationDialog = true
        XCTAssertFalse(ChallengeLadder(isProxy: false, settings: settings).presentsDialog)
        XCTAssertTrue(ChallengeLadder(isProxy: true, settings: settings).presentsDialog)
    }

    func testThatAProxyThenAServerChallengeClimbTwoSeparateLadders() {
        // A 407 answered with a stale nonce does not use up the server's one stale retry.
        let stale = challenges("Digest realm=\"a\", nonce=\"n2\", stale=true")
        let proxy = ChallengeLadder(isProxy: true, settings: AuthenticationSettings())
        guard case .answer(_, .staleNonce) = read(proxy, stale, retries: 1, presented: presented(.digest)) else {
            return XCTFail()
        }
        guard case .answer(_, .staleNonce) = read(server(), stale, retries: 2, presented: presented(.digest)) else {
            return XCTFail()
        }
    }

    // MARK: - Nothing found

    func testThatAnAsynchronousRequestAsksItsDelegate() {
        XCTAssertEqual(
            server(dialog: true).fallback(
                isSynchronous: false, hasAsker: true, canPrompt: true, wasRefused: false, realm: nil), .ask)
    }

    func testThatASynchronousRequestAsksNobodyButTheDialog() {
        XCTAssertEqual(
            server(dialog: true).fallback(
                isSynchronous: true, hasAsker: true, canPrompt: true, wasRefused: false, realm: nil),
            .presentDialog)
    }

    func testThatWithNobodyToAskTheDialogIsPresentedWhenAllowed() {
        XCTAssertEqual(
            server(dialog: true).fallback(
                isSynchronous: false, hasAsker: false, canPrompt: true, wasRefused: false, realm: nil),
            .presentDialog)
    }

    func testThatTheDialogNeedsAPrompt() {
        guard
            case .fail = server(dialog: true).fallback(
                isSynchronous: false, hasAsker: false, canPrompt: false, wasRefused: false, realm: nil)
        else { return XCTFail() }
    }

    func testThatWithNothingLeftTheRequestFailsSayingNoneWereAvailable() {
        XCTAssertEqual(
            server().fallback(isSynchronous: false, hasAsker: false, canPrompt: true, wasRefused: false, realm: "r"),
            .fail("The server asked for credentials (realm \"r\") and none were available"))
    }

    func testThatAfterARefusalTheFailureSaysRefused() {
        let proxy = ChallengeLadder(
            isProxy: true, usesSessionStore: true, usesCredentialFile: true, presentsDialog: false)
        XCTAssertEqual(
            proxy.fallback(isSynchronous: false, hasAsker: false, canPrompt: true, wasRefused: true, realm: nil),
            .fail("The proxy refused the credentials"))
    }
}
