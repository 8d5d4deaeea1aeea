import Foundation

/// Which credentials an attempt presents before any challenge, and what a success remembers.
/// ASI's rules (asi-api.md A.5, F.3): credentials the session store holds for the server go out
/// before the challenge; the request's own only when `authenticationScheme` is "Basic"; the
/// credential file's never.
extension HTTPRequest {
    /// What the attempt about to start presents to the server and the proxy, and the proxy it
    /// goes through. Under the request's lock (the session store's is a leaf).
    static func credentialsForAttempt(_ state: inout RequestState, url: URL) -> TransferAuthentication? {
        let settings = state.config.auth
        // The plain request: nothing chosen, no proxy set, nothing to send before a challenge.
        if state.authentication.server.current == nil, state.authentication.proxy.current == nil,
            settings.proxyHost == nil, settings.scheme == nil,
            !settings.useSessionPersistence || SessionCredentialStore.shared.isEmpty
        {
            if state.authentication.presentsAny {
                state.authentication.server.presented = nil
                state.authentication.proxy.presented = nil
                state.authentication.presentsAny = false
            }
            return nil
        }
        let proxyAddress = settings.proxyHost.flatMap {
            ProxyAddress.effective(host: $0, port: settings.proxyPort, for: url)
        }
        var server = state.authentication.server.current
        if server != nil, state.authentication.server.currentServer != ProtectionSpace(url: url) {
            // Chosen for another server, before a redirect.
            server = nil
            state.authentication.server.current = nil
        }
        if server == nil, settings.shouldPresentCredentialsBeforeChallenge {
            server = credentialBeforeChallenge(&state, url: url)
        }
        state.authentication.server.presented = server
        let digestAnswer = server.flatMap { digestAuthorization(&state, presenting: $0, url: url) }
        var proxy = state.authentication.proxy.current
        if proxy == nil, settings.useSessionPersistence, settings.shouldPresentCredentialsBeforeChallenge,
            !SessionCredentialStore.shared.isEmpty,
            let address = proxyAddress ?? ProxyAddress.effective(host: nil, port: 0, for: url),
            let entry = SessionCredentialStore.shared.bestProxyMatch(host: address.host, port: address.port)
        {
            // ASI sent the session's proxy credentials before the proxy asked, too.
            proxy = PresentedCredential(
                credential: entry.credential, method: entry.space.method, source: .session, answersChallenge: false)
            state.authentication.proxy.scheme = entry.space.method?.rawValue
            state.authentication.proxy.realm = entry.space.realm
        }
        state.authentication.proxy.presented = proxy
        state.authentication.presentsAny = server != nil || proxy != nil
        return TransferAuthentication.make(
            server: digestAnswer == nil ? server.map { TransferCredentials($0.credential, method: $0.method) } : nil,
            serverAuthorization: digestAnswer, proxy: proxyAddress?.curlValue(settings.proxyType),
            proxyCredentials: proxy.map { TransferCredentials($0.credential, method: $0.method) })
    }

    /// The answer to the Digest challenge the last attempt received, when `credential` answers
    /// it: computed here, since libcurl would first send the request again without credentials
    /// to be challenged in its own transfer. Nil leaves Digest to libcurl.
    private static func digestAuthorization(
        _ state: inout RequestState, presenting credential: PresentedCredential, url: URL
    ) -> String? {
        guard let unanswered = state.authentication.server.unansweredDigest else { return nil }
        // One attempt answers a challenge; later ones (a redirect) leave it to libcurl.
        state.authentication.server.unansweredDigest = nil
        // A user's own Authorization line would go out beside this one.
        guard credential.method == .digest, unanswered.server == ProtectionSpace(url: url),
            !state.config.requestHeaders.contains("Authorization"), let uri = DigestAuthorization.requestURI(of: url)
        else { return nil }
        let method = state.config.requestMethod
        return DigestAuthorization.value(
            answering: unanswered.challenge, credential: credential.credential, method: method, uri: uri,
            hasBody: method != "HEAD" && hasBody(state.config))
    }

    private static func credentialBeforeChallenge(_ state: inout RequestState, url: URL) -> PresentedCredential? {
        // Most requests have neither: no URL is parsed for them (this runs for every attempt).
        let sendsOwnBasic = state.config.auth.scheme?.lowercased() == "basic"
        let sessionMayHave = state.config.auth.useSessionPersistence && !SessionCredentialStore.shared.isEmpty
        guard sendsOwnBasic || sessionMayHave else { return nil }
        let own = ownCredential(state, url: url)
        if let own, state.config.auth.scheme?.lowercased() == "basic" {
            return PresentedCredential(
                credential: own.credential, method: .basic, source: own.source, answersChallenge: false)
        }
        guard state.config.auth.useSessionPersistence, !SessionCredentialStore.shared.isEmpty,
            let entry = SessionCredentialStore.shared.bestMatch(
                for: url, realm: state.authentication.server.realm, requiring: own?.credential)
        else { return nil }
        // What the store learnt from the challenge that credential answered.
        state.authentication.server.scheme = entry.space.method?.rawValue
        state.authentication.server.realm = entry.space.realm
        return PresentedCredential(
            credential: entry.credential, method: entry.space.method, source: .session, answersChallenge: false)
    }

    /// The request's own credentials for the server: `username`/`password`, else those in the
    /// URL. Only for the host the request was made for, unless `shouldSendCredentialsAcrossRedirects`.
    static func ownCredential(
        _ state: RequestState, url: URL
    ) -> (credential: StoredCredential, source: CredentialSource)? {
        if let original = state.originalURL, !state.config.shouldSendCredentialsAcrossRedirects,
            !RedirectPolicy.isSameAuthority(original, url)
        {
            return nil
        }
        if let own = state.config.auth.ownCredential(proxy: false) { return (own, .request) }
        let source = state.originalURL ?? url
        guard let user = source.user(percentEncoded: false), !user.isEmpty else { return nil }
        return (StoredCredential(user: user, password: source.password(percentEncoded: false) ?? ""), .url)
    }

    /// The URL as libcurl gets it: without a user and password, which Courier presents itself.
    static func urlWithoutCredentials(_ text: String) -> String {
        // Most URLs have no "@" at all: no parsing for them (memchr over the bytes, since
        // String.UTF8View.contains costs ~800 instructions here, for every attempt).
        var text = text
        let hasAt = text.withUTF8 { bytes in
            bytes.baseAddress.map { memchr($0, Int32(UInt8(ascii: "@")), bytes.count) != nil } ?? false
        }
        guard hasAt, var components = URLComponents(string: text),
            components.user != nil || components.password != nil
        else { return text }
        components.user = nil
        components.password = nil
        return components.string ?? text
    }

    // MARK: - After the attempt

    /// What to remember once a response shows credentials worked.
    struct CredentialSaves: Sendable {
        var persistentServer: (StoredCredential, ProtectionSpace)?
        var persistentProxy: (StoredCredential, ProxyAddress, String?)?
        var isEmpty: Bool { persistentServer == nil && persistentProxy == nil }
    }

    /// The attempt ended with `status`: credentials it presented and that were not refused go to
    /// the session store now, and to the credential file (returned, to be written outside the
    /// lock). Under the request's lock.
    static func rememberWorkingCredentials(_ state: inout RequestState, status: Int, url: URL) -> CredentialSaves {
        var saves = CredentialSaves()
        let settings = state.config.auth
        if status != 407, let proxy = state.authentication.proxy.presented,
            let address = effectiveProxyAddress(state, for: url)
        {
            let realm = state.authentication.proxy.realm
            if settings.useSessionPersistence {
                SessionCredentialStore.shared.saveProxy(
                    proxy.credential, host: address.host, port: address.port, realm: realm, method: proxy.method)
            }
            if proxy.source != .persistent, settings.useKeychainPersistence {
                saves.persistentProxy = (proxy.credential, address, realm)
            }
            state.authentication.proxy.presented = nil
        }
        if status != 401, status != 407, let server = state.authentication.server.presented {
            let realm = state.authentication.server.realm
            if settings.useSessionPersistence {
                SessionCredentialStore.shared.save(server.credential, for: url, realm: realm, method: server.method)
            }
            if server.answersChallenge, server.source != .persistent, settings.useKeychainPersistence,
                let space = ProtectionSpace(url: url, realm: realm, method: server.method)
            {
                saves.persistentServer = (server.credential, space)
            }
            state.authentication.server.presented = nil
        }
        return saves
    }

    /// Writes what `rememberWorkingCredentials` left for the credential file. A file that cannot
    /// be written is reported in the log; the request succeeded all the same.
    static func save(_ saves: CredentialSaves) {
        do {
            if let (credential, space) = saves.persistentServer {
                try PersistentCredentialStore.save(
                    credential, protocol: space.scheme, host: space.host, port: space.port, realm: space.realm)
            }
            if let (credential, address, realm) = saves.persistentProxy {
                try PersistentCredentialStore.saveProxy(
                    credential, host: address.host, port: address.port, realm: realm)
            }
        } catch {
            Log.message("the credentials that worked could not be saved: \(error)")
        }
    }
}
