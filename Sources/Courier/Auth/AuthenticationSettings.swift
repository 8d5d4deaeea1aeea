import Foundation

/// What a request is told about authentication: part of its configuration, so `copy()` carries
/// it over (ASI copied username, password and domain too).
struct AuthenticationSettings {
    var username: String?
    var password: String?
    /// The NTLM domain.
    var domain: String?
    var proxyUsername: String?
    var proxyPassword: String?
    var proxyDomain: String?
    var useSessionPersistence = true
    var useKeychainPersistence = false
    var shouldPresentCredentialsBeforeChallenge = true
    var shouldPresentAuthenticationDialog = false
    var shouldPresentProxyAuthenticationDialog = true
    /// `authenticationScheme` as the user set it: "Basic" makes the request's own credentials
    /// go out before any challenge (ASI).
    var scheme: String?
    var proxyHost: String?
    var proxyPort = 0
    var proxyType = ProxyType.http

    /// The request's own credentials for the server or the proxy, with the NTLM domain split
    /// from a "DOMAIN\user" name when no domain was set (ASI's findCredentials).
    func ownCredential(proxy: Bool) -> StoredCredential? {
        let (user, password, domain) =
            proxy ? (proxyUsername, proxyPassword, proxyDomain) : (username, password, self.domain)
        guard let user, !user.isEmpty else { return nil }
        return StoredCredential(user: user, password: password ?? "", domain: domain)
    }
}

/// Where a credential a request presents came from: it decides what a refusal forgets and
/// what a success saves.
enum CredentialSource: Sendable, Equatable {
    /// `username`/`password` (or the proxy's), set by the user or by a delegate answering.
    case request
    /// The user and password written in the URL.
    case url
    case session
    case persistent
    /// Typed into the terminal dialog.
    case dialog
}

/// A credential one attempt presents, and how.
struct PresentedCredential: Sendable, Equatable {
    var credential: StoredCredential
    /// The method libcurl may answer with; nil lets it answer whichever the server asks for
    /// (used before a challenge for credentials saved without a method).
    var method: AuthenticationMethod?
    var source: CredentialSource
    /// True when it answers a challenge of this request; false when it went out before one.
    var answersChallenge: Bool
}

/// How a request's authentication stands with the server or with its proxy.
struct AuthenticationSide: Sendable {
    /// The scheme of the last challenge answered, or the user's choice before any.
    var scheme: String?
    /// The realm of the last challenge.
    var realm: String?
    /// Presented by every later attempt of the request, until refused: found after a challenge,
    /// or supplied. So a 407 answered after a 401 (or the other way round) keeps both.
    var current: PresentedCredential?
    /// The server `current` was chosen for: a redirect to another one does not take it along.
    var currentServer: ProtectionSpace?
    /// Presented by the current (or last) attempt.
    var presented: PresentedCredential?
    /// Credentials this request has already tried and seen refused, and where: never offered
    /// again by a store, and never sent again to the server (or proxy) and realm that refused
    /// them, whoever supplies them, so a refusal cannot loop (and lock an account).
    var refusals: Set<Refusal> = []
    /// The credentials of `refusals`, wherever they were refused.
    var refused: Set<StoredCredential> { Set(refusals.map(\.credential)) }
    /// A stale Digest nonce has been answered once without asking.
    var retriedStaleNonce = false
    /// The server's last Digest challenge, not answered yet, and the server it came from: the
    /// next attempt answers it itself (`DigestAuthorization`). Server side only.
    var unansweredDigest: (challenge: AuthenticationChallenge, server: ProtectionSpace?)?
    /// Set while this request is the one asking a delegate or the dialog for these credentials
    /// (see `CredentialPrompts`).
    var askingKey: CredentialPrompts.Key?
}

/// A credential a server or proxy refused, and the protection space it refused it for.
struct Refusal: Sendable, Hashable {
    var credential: StoredCredential
    var space: CredentialPrompts.Key
}

/// The request's authentication run: one side for the server, one for the proxy.
struct AuthenticationRun: Sendable {
    var server = AuthenticationSide()
    var proxy = AuthenticationSide()

    /// Whether the current attempt presents credentials (kept as a flag: asking the optionals
    /// copies them, and this is asked at the end of every attempt).
    var presentsAny = false

    /// From now on the request presents `credential` to the server of `url` (or to its proxy).
    mutating func choose(_ credential: PresentedCredential, proxy isProxy: Bool, for url: URL) {
        if isProxy {
            proxy.current = credential
        } else {
            server.current = credential
            server.currentServer = ProtectionSpace(url: url)
        }
    }

    subscript(proxy isProxy: Bool) -> AuthenticationSide {
        get { isProxy ? proxy : server }
        set {
            if isProxy { proxy = newValue } else { server = newValue }
        }
    }
}
