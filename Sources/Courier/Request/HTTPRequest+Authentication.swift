import Foundation

/// ASI's authentication settings and what a challenge left behind. Every property may be read
/// and set from any thread; set them before the request starts, or from
/// `authenticationNeeded(for:)` before `retryUsingSuppliedCredentials()`.
extension HTTPRequest {
    // MARK: - Credentials

    /// The user name presented to the server after a challenge (or at once when
    /// `authenticationScheme` is "Basic"). A user name written in the URL works too.
    public var username: String? {
        get { read(\.config.auth.username) }
        set { write(\.config.auth.username, newValue) }
    }

    /// The password that goes with `username`.
    public var password: String? {
        get { read(\.config.auth.password) }
        set { write(\.config.auth.password, newValue) }
    }

    /// The NTLM domain. Without one, a user name "DOMAIN\user" gives it.
    public var domain: String? {
        get { read(\.config.auth.domain) }
        set { write(\.config.auth.domain, newValue) }
    }

    /// The user name presented to the proxy after a 407.
    public var proxyUsername: String? {
        get { read(\.config.auth.proxyUsername) }
        set { write(\.config.auth.proxyUsername, newValue) }
    }

    /// The password that goes with `proxyUsername`.
    public var proxyPassword: String? {
        get { read(\.config.auth.proxyPassword) }
        set { write(\.config.auth.proxyPassword, newValue) }
    }

    /// The proxy's NTLM domain.
    public var proxyDomain: String? {
        get { read(\.config.auth.proxyDomain) }
        set { write(\.config.auth.proxyDomain, newValue) }
    }

    // MARK: - Stores and dialogs

    /// Reuse credentials that worked, for the same scheme, host, port and realm, for the rest of
    /// the process (true), and remember those that work now.
    public var useSessionPersistence: Bool {
        get { read(\.config.auth.useSessionPersistence) }
        set { write(\.config.auth.useSessionPersistence, newValue) }
    }

    /// Read credentials from the credential file, and save those that work there (false). On
    /// Linux ASI's keychain is a file only its owner can read: see
    /// `HTTPRequest.saveCredentials(_:forHost:port:protocol:realm:)`. Proxy credentials are read
    /// from it whatever this says, as ASI did.
    public var useKeychainPersistence: Bool {
        get { read(\.config.auth.useKeychainPersistence) }
        set { write(\.config.auth.useKeychainPersistence, newValue) }
    }

    /// Send credentials from the session store before the server asks (true), as ASI did:
    /// Basic saves the round trip of the challenge. Credentials from the credential file never
    /// go out before a challenge.
    public var shouldPresentCredentialsBeforeChallenge: Bool {
        get { read(\.config.auth.shouldPresentCredentialsBeforeChallenge) }
        set { write(\.config.auth.shouldPresentCredentialsBeforeChallenge, newValue) }
    }

    /// Ask for the server's credentials on the terminal when nothing else supplies them (false).
    /// Only when a terminal is attached; never blocks without one.
    public var shouldPresentAuthenticationDialog: Bool {
        get { read(\.config.auth.shouldPresentAuthenticationDialog) }
        set { write(\.config.auth.shouldPresentAuthenticationDialog, newValue) }
    }

    /// Ask for the proxy's credentials on the terminal when nothing else supplies them (true).
    /// Only when a terminal is attached; never blocks without one.
    public var shouldPresentProxyAuthenticationDialog: Bool {
        get { read(\.config.auth.shouldPresentProxyAuthenticationDialog) }
        set { write(\.config.auth.shouldPresentProxyAuthenticationDialog, newValue) }
    }

    // MARK: - After a challenge

    /// The scheme of the server's last challenge ("Basic", "Digest", "NTLM"), or the one set.
    /// Setting "Basic" sends the request's own `username` and `password` before any challenge.
    public var authenticationScheme: String? {
        get { state.withLock { $0.authentication.server.scheme ?? $0.config.auth.scheme } }
        set { write(\.config.auth.scheme, newValue) }
    }

    /// The realm of the server's last challenge.
    public var authenticationRealm: String? { read(\.authentication.server.realm) }

    /// How many times the request was sent again with credentials after a 401: 0 when
    /// credentials sent before the challenge were accepted.
    public var authenticationRetryCount: Int { read(\.core.authenticationRetries) }

    /// The scheme of the proxy's last challenge.
    public var proxyAuthenticationScheme: String? { read(\.authentication.proxy.scheme) }

    /// The realm of the proxy's last challenge.
    public var proxyAuthenticationRealm: String? { read(\.authentication.proxy.realm) }

    /// How many times the request was sent again with proxy credentials after a 407.
    public var proxyAuthenticationRetryCount: Int { read(\.core.proxyAuthenticationRetries) }

    // MARK: - Proxy

    /// The proxy to go through (of `proxyType`); nil uses `http_proxy`/`https_proxy`/`no_proxy`
    /// from the environment, as libcurl reads them. A set host wins over the environment. With
    /// `pacURL` and no host set, it reads as the proxy the PAC file chose for the last attempt
    /// (nil for DIRECT), as in ASI.
    public var proxyHost: String? {
        get { state.withLock { Self.reportedProxy(&$0).host } }
        set { write(\.config.auth.proxyHost, newValue) }
    }

    /// The proxy's port; 0 means 1080, libcurl's default. With `pacURL` and no host set, the
    /// port of the PAC file's choice for the last attempt (0 for DIRECT).
    public var proxyPort: Int {
        get { state.withLock { Self.reportedProxy(&$0).port } }
        set { write(\.config.auth.proxyPort, newValue) }
    }

    // MARK: - The session

    /// Forgets every credential of the session store, for servers and proxies, drops the shared
    /// jar's session cookies (those without an expiry), and clears the default cache's
    /// session-duration entries. Any thread.
    public class func clearSession() {
        SessionCredentialStore.shared.clear()
        clearSessionCookies()
        defaultCache?.clearCachedResponses(for: .sessionDuration)
    }
}

/// A delegate that supplies credentials: the request waits, after a 401 (or a 407) it has no
/// credentials for, until `retryUsingSuppliedCredentials()` or `cancelAuthentication()` is called
/// on it. Called on the request's callback queue. A synchronous request never asks.
///
/// Both methods are required: a delegate that has nothing to supply for one calls
/// `cancelAuthentication()` there, so no request waits for an answer that never comes.
public protocol HTTPRequestAuthenticationDelegate: HTTPRequestDelegate {
    /// The server asked `request` for credentials: set its `username` and `password` (and
    /// `domain` for NTLM), then call `retryUsingSuppliedCredentials()`, or call
    /// `cancelAuthentication()`. `authenticationRealm` and `authenticationScheme` say what was asked.
    func authenticationNeeded(for request: HTTPRequest)
    /// The proxy asked: the same with `proxyUsername`, `proxyPassword` and `proxyDomain`.
    func proxyAuthenticationNeeded(for request: HTTPRequest)
}
