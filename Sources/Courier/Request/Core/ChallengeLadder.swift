import Foundation

/// How a request answers a 401, or a 407 from its proxy, as ASI did (asi-api.md F.3): the
/// strongest scheme it speaks; a stale Digest nonce answered again once with the same
/// credentials; credentials the server refused never offered again; then the credential sources
/// in order (the request's own, from `username`/`password` or the URL; the session store; the
/// credential file, with `useKeychainPersistence` and always for a proxy); with none left, the
/// delegate (or block, or queue's delegate; asynchronous requests only), then the terminal
/// dialog, then the failure. The server's and the proxy's ladders are separate: a 407 answered
/// and then a 401 climbs each once. The request looks in the stores (the file is disk work) and
/// keeps the state; this value only decides, so each rung has a socket-free test
/// (ChallengeLadderTests).
struct ChallengeLadder: Sendable, Equatable {
    /// Answering the proxy's 407 (true) or the server's 401.
    var isProxy: Bool
    var usesSessionStore: Bool
    var usesCredentialFile: Bool
    /// Whether the terminal dialog may be shown for this side.
    var presentsDialog: Bool

    /// Authentication retries of one request, server and proxy together, after which it gives
    /// up: a safety net, since refused credentials are never offered twice by a store, but a
    /// delegate may keep answering.
    static let maximumRetries = 20

    init(isProxy: Bool, usesSessionStore: Bool, usesCredentialFile: Bool, presentsDialog: Bool) {
        self.isProxy = isProxy
        self.usesSessionStore = usesSessionStore
        self.usesCredentialFile = usesCredentialFile
        self.presentsDialog = presentsDialog
    }

    init(isProxy: Bool, settings: AuthenticationSettings) {
        self.init(
            isProxy: isProxy, usesSessionStore: settings.useSessionPersistence,
            // ASI kept proxy credentials in the keychain whatever useKeychainPersistence said.
            usesCredentialFile: isProxy || settings.useKeychainPersistence,
            presentsDialog: isProxy
                ? settings.shouldPresentProxyAuthenticationDialog : settings.shouldPresentAuthenticationDialog)
    }

    /// The response header that carries this side's challenges.
    var challengeField: String { isProxy ? "Proxy-Authenticate" : "WWW-Authenticate" }

    // MARK: - The challenge

    /// What the credentials the failed attempt presented turned out to be.
    enum Verdict: Equatable {
        /// Right, but the Digest nonce had expired: present them again at once, without asking.
        case staleNonce
        /// Refused: never offered again by a store, nor sent again to this server and realm.
        case refused
        /// Not judged: nothing was presented, or it was presented for another scheme than the one
        /// now asked for (Basic from the session store, where the server wants Digest).
        case unjudged
    }

    /// The challenge to answer, or why none can be.
    enum Reading: Equatable {
        case answer(AuthenticationChallenge, Verdict)
        case fail(String)
    }

    /// Reads the challenges of a 401 (or 407), given the request's authentication retries so
    /// far (both sides), what the failed attempt presented, and whether this side already
    /// answered a stale nonce.
    func read(
        _ challenges: [AuthenticationChallenge], retriesSoFar: Int, presented: PresentedCredential?,
        hasRetriedStaleNonce: Bool
    ) -> Reading {
        guard let challenge = AuthenticationChallenge.strongest(in: challenges) else {
            let offered = challenges.map(\.scheme).joined(separator: ", ")
            return .fail(
                offered.isEmpty
                    ? "\(who) answered \(isProxy ? 407 : 401) without a challenge Courier can answer"
                    : "\(who) asked for credentials with a scheme Courier does not speak (\(offered))")
        }
        guard retriesSoFar < Self.maximumRetries else {
            return .fail(
                "The \(isProxy ? "proxy" : "server") kept asking for credentials: gave up after "
                    + "\(Self.maximumRetries) tries")
        }
        guard let presented else { return .answer(challenge, .unjudged) }
        if challenge.isStale, presented.method == .digest, !hasRetriedStaleNonce {
            return .answer(challenge, .staleNonce)
        }
        let isJudged = presented.method == nil || presented.method == challenge.method
        return .answer(challenge, isJudged ? .refused : .unjudged)
    }

    // MARK: - Credentials

    /// A place credentials may come from, without asking anyone.
    enum Rung: Equatable {
        /// The request's own: `username`/`password` (or the proxy's), else the URL's.
        case own
        case sessionStore
        /// The credential file: disk work, and a lock another process may hold.
        case credentialFile
    }

    /// The places to look, in order.
    var rungs: [Rung] {
        var rungs: [Rung] = [.own]
        if usesSessionStore { rungs.append(.sessionStore) }
        if usesCredentialFile { rungs.append(.credentialFile) }
        return rungs
    }

    /// `credential`, unless this request saw it refused.
    static func usable(_ credential: StoredCredential?, refused: Set<StoredCredential>) -> StoredCredential? {
        credential.flatMap { refused.contains($0) ? nil : $0 }
    }

    // MARK: - Nothing found

    /// What the request does when no rung had usable credentials.
    enum Fallback: Equatable {
        /// Ask the delegate, the block or the queue's delegate, and wait.
        case ask
        case presentDialog
        case fail(String)
    }

    /// A synchronous request asks nobody (its caller's thread is waiting on it; ASI's
    /// startSynchronous did not ask either); the dialog needs a prompt to show (`canPrompt`: a
    /// server or proxy to name).
    func fallback(isSynchronous: Bool, hasAsker: Bool, canPrompt: Bool, wasRefused: Bool, realm: String?) -> Fallback {
        if !isSynchronous, hasAsker { return .ask }
        // With no terminal the dialog answers nil at once, and the request fails then.
        if presentsDialog, canPrompt { return .presentDialog }
        let realm = realm.map { " (realm \"\($0)\")" } ?? ""
        let who = isProxy ? "proxy" : "server"
        return .fail(
            wasRefused
                ? "The \(who) refused the credentials\(realm)"
                : "The \(who) asked for credentials\(realm) and none were available")
    }

    private var who: String { isProxy ? "The proxy" : "The server" }
}
