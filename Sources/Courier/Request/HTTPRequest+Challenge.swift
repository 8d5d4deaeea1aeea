import Foundation

/// A 401 (or a 407 from the proxy) ended the attempt. As ASI did (asi-api.md F.3), the request
/// looks for credentials, in order: its own (`username`/`password`, or the URL's), the session
/// store, the credential file (with `useKeychainPersistence`; always for a proxy); then it asks
/// its delegate, its authentication-needed block or its queue's delegate (asynchronous requests
/// only), then the terminal dialog. Found credentials are a new attempt; credentials the server
/// refused are never offered again by a store, so a refusal cannot loop.
extension HTTPRequest {
    /// Where the answer to a challenge comes from.
    private enum ChallengeStep {
        case retry
        case ask
        case dialog(AuthenticationPrompt)
        case fail(HTTPRequestError)
        /// Cancelled meanwhile: nothing to do.
        case none
    }

    /// What the lookup needs, read under the lock.
    private struct ChallengeContext {
        var url: URL
        var challenge: AuthenticationChallenge
        var own: (credential: StoredCredential, source: CredentialSource)?
        var refused: Set<StoredCredential>
        var usesSession: Bool
        var usesFile: Bool
        var wasRefused: Bool
        /// The proxy the request went through (set by hand, the PAC file's choice, or the
        /// environment's), as proxy credentials are keyed.
        var proxyAddress: ProxyAddress?
    }

    /// Authentication retries of one request, server and proxy together, after which it gives up:
    /// a safety net, since refused credentials are never offered twice by a store, but a
    /// delegate may keep answering.
    static let maximumRetries = 20

    func answerChallenge(proxy: Bool) {
        let first = state.withLock { state -> Result<ChallengeContext, HTTPRequestError>? in
            Self.readChallenge(&state, proxy: proxy)
        }
        let context: ChallengeContext
        switch first {
        case nil: return beginAttempt()
        case .failure(let error)?: return finishAttempt(.failed(error))
        case .success(let found)?: context = found
        }
        let found = lookUpCredentials(context, proxy: proxy)
        let queueAsker: AnyObject? = notifyQueue {
            $0.delegate is HTTPRequestAuthenticationDelegate ? $0.delegate : nil
        }
        let step = state.withLock { state -> ChallengeStep in
            guard state.machine.phase == .executing, state.machine.activity == .attempting,
                state.machine.transfer == nil
            else { return .none }
            if let found {
                state.authentication.choose(
                    PresentedCredential(
                        credential: found.credential, method: context.challenge.method, source: found.source,
                        answersChallenge: true),
                    proxy: proxy, for: context.url)
                return state.machine.retryWithCredentials(proxy: proxy) ? .retry : .none
            }
            return Self.nextStep(&state, proxy: proxy, context: context, queueAsks: queueAsker != nil)
        }
        switch step {
        case .retry: beginAttempt()
        case .ask:
            ask(
                proxy: proxy,
                key: Self.challengeSpace(
                    url: context.url, realm: context.challenge.realm, proxyAddress: context.proxyAddress, proxy: proxy),
                queueAsker: queueAsker)
        case .dialog(let prompt): presentDialog(prompt, proxy: proxy)
        case .fail(let error): finishAttempt(.failed(error))
        case .none: break
        }
    }

    /// Records the challenge; nil when a stale Digest nonce is answered again at once (the
    /// attempt is set up: begin it), a failure when no challenge can be answered.
    private static func readChallenge(
        _ state: inout RequestState, proxy: Bool
    ) -> Result<ChallengeContext, HTTPRequestError>? {
        let url = state.config.url
        let field = proxy ? "Proxy-Authenticate" : "WWW-Authenticate"
        let challenges = AuthenticationChallenge.parse(state.response.headers[field].map { [$0] } ?? [])
        guard let challenge = AuthenticationChallenge.strongest(in: challenges) else {
            let offered = challenges.map(\.scheme).joined(separator: ", ")
            let who = proxy ? "The proxy" : "The server"
            return .failure(
                HTTPRequestError(
                    type: .authentication,
                    message: offered.isEmpty
                        ? "\(who) answered \(proxy ? 407 : 401) without a challenge Courier can answer"
                        : "\(who) asked for credentials with a scheme Courier does not speak (\(offered))",
                    url: url))
        }
        guard state.machine.authenticationRetries + state.machine.proxyAuthenticationRetries < maximumRetries else {
            return .failure(
                HTTPRequestError(
                    type: .authentication,
                    message: "The \(proxy ? "proxy" : "server") kept asking for credentials: gave up after "
                        + "\(maximumRetries) tries", url: url))
        }
        let proxyAddress = effectiveProxyAddress(state, for: url)
        var side = state.authentication[proxy: proxy]
        side.scheme = challenge.method?.rawValue
        side.realm = challenge.realm
        if !proxy { side.unansweredDigest = challenge.method == .digest ? (challenge, ProtectionSpace(url: url)) : nil }
        let presented = side.presented
        side.presented = nil
        defer { state.authentication[proxy: proxy] = side }
        if let presented, challenge.isStale, presented.method == .digest, !side.retriedStaleNonce {
            // The credentials were right; only the nonce had expired. Once, without asking.
            side.retriedStaleNonce = true
            side.current = presented
            return state.machine.retryWithCredentials(proxy: proxy) ? nil : .failure(.cancelled(url))
        }
        // Credentials sent with another method than the one now asked for (Basic from the session
        // store, where the server wants Digest) were not judged: they may answer the challenge.
        let wasRefused = presented.map { $0.method == nil || $0.method == challenge.method } ?? false
        if let presented, wasRefused {
            side.current = nil
            side.refusals.insert(
                Refusal(
                    credential: presented.credential,
                    space: challengeSpace(url: url, realm: challenge.realm, proxyAddress: proxyAddress, proxy: proxy)))
            if presented.source == .session { forgetRejected(presented.credential, proxy: proxy, state: state) }
        }
        let settings = state.config.auth
        let own: (credential: StoredCredential, source: CredentialSource)? =
            proxy ? settings.ownCredential(proxy: true).map { ($0, .request) } : ownCredential(state, url: url)
        return .success(
            ChallengeContext(
                url: url, challenge: challenge, own: own, refused: side.refused,
                usesSession: settings.useSessionPersistence, usesFile: proxy || settings.useKeychainPersistence,
                wasRefused: wasRefused, proxyAddress: proxyAddress))
    }

    private static func forgetRejected(_ credential: StoredCredential, proxy: Bool, state: RequestState) {
        let url = state.config.url
        if proxy {
            if let address = effectiveProxyAddress(state, for: url) {
                SessionCredentialStore.shared.removeRejectedProxy(credential, host: address.host, port: address.port)
            }
        } else {
            SessionCredentialStore.shared.removeRejected(credential, for: url)
        }
    }

    /// The request's own, the session store's, then the credential file's, skipping any this
    /// request saw refused. Outside the lock: the file is read afresh.
    private func lookUpCredentials(
        _ context: ChallengeContext, proxy: Bool
    ) -> (credential: StoredCredential, source: CredentialSource)? {
        func usable(_ credential: StoredCredential?) -> StoredCredential? {
            credential.flatMap { context.refused.contains($0) ? nil : $0 }
        }
        if let own = context.own, usable(own.credential) != nil { return own }
        let realm = context.challenge.realm
        let method = context.challenge.method
        let address = context.proxyAddress
        if context.usesSession {
            let session =
                proxy
                ? address.flatMap {
                    SessionCredentialStore.shared.bestProxyMatch(
                        host: $0.host, port: $0.port, realm: realm, method: method)?
                        .credential
                }
                : SessionCredentialStore.shared.bestMatch(for: context.url, realm: realm, method: method)?.credential
            if let credential = usable(session) { return (credential, .session) }
        }
        guard context.usesFile else { return nil }
        do {
            let saved: StoredCredential?
            if proxy {
                saved = try address.flatMap {
                    try PersistentCredentialStore.proxyCredential(host: $0.host, port: $0.port, realm: realm)
                }
            } else if let space = ProtectionSpace(url: context.url) {
                saved = try PersistentCredentialStore.credential(
                    protocol: space.scheme, host: space.host, port: space.port, realm: realm)
            } else {
                saved = nil
            }
            if let credential = usable(saved) { return (credential, .persistent) }
        } catch {
            Log.message("the credential file was not used: \(error)")
        }
        return nil
    }

    /// Nothing was found: ask, present the dialog, or fail. Under the lock.
    private static func nextStep(
        _ state: inout RequestState, proxy: Bool, context: ChallengeContext, queueAsks: Bool
    ) -> ChallengeStep {
        let isSynchronous = state.mailbox?.isSynchronous ?? false
        let delegateAsks = state.delegate is HTTPRequestAuthenticationDelegate
        let blockAsks = (proxy ? state.blocks.proxyAuthenticationNeeded : state.blocks.authenticationNeeded) != nil
        if !isSynchronous, delegateAsks || blockAsks || queueAsks {
            return state.machine.awaitCredentials(proxy: proxy) ? .ask : .none
        }
        let settings = state.config.auth
        let dialogAllowed =
            proxy ? settings.shouldPresentProxyAuthenticationDialog : settings.shouldPresentAuthenticationDialog
        // With no terminal the dialog answers nil at once, and the request fails then.
        if dialogAllowed, let prompt = prompt(for: context, proxy: proxy, settings: settings) {
            return state.machine.awaitCredentials(proxy: proxy) ? .dialog(prompt) : .none
        }
        let who = proxy ? "proxy" : "server"
        let realm = context.challenge.realm.map { " (realm \"\($0)\")" } ?? ""
        return .fail(
            HTTPRequestError(
                type: .authentication,
                message: context.wasRefused
                    ? "The \(who) refused the credentials\(realm)"
                    : "The \(who) asked for credentials\(realm) and none were available",
                url: context.url))
    }

    private static func prompt(
        for context: ChallengeContext, proxy: Bool, settings: AuthenticationSettings
    ) -> AuthenticationPrompt? {
        let method = context.challenge.method ?? .basic
        if proxy {
            guard let address = context.proxyAddress else { return nil }
            return AuthenticationPrompt(
                host: address.host, port: address.port, realm: context.challenge.realm, isProxy: true,
                asksForDomain: method == .ntlm, sendsPasswordInClear: method.sendsPasswordInClear)
        }
        guard let space = ProtectionSpace(url: context.url, realm: context.challenge.realm) else { return nil }
        return AuthenticationPrompt(server: space, method: method)
    }

    /// The server (or proxy) and realm a challenge came from: whom one request at a time asks
    /// for credentials, and where a refusal holds.
    static func challengeSpace(
        url: URL, realm: String?, proxyAddress: ProxyAddress?, proxy: Bool
    ) -> CredentialPrompts.Key {
        if proxy, let proxyAddress {
            return CredentialPrompts.Key(isProxy: true, host: proxyAddress.host, port: proxyAddress.port, realm: realm)
        }
        let space = ProtectionSpace(url: url)
        return CredentialPrompts.Key(isProxy: proxy, host: space?.host ?? "", port: space?.port ?? 0, realm: realm)
    }

    /// Whether the server (or proxy) that now asks refused `credential` for this request, in the
    /// realm it asks for. Under the request's lock.
    static func wasRefused(_ credential: StoredCredential, proxy: Bool, state: RequestState) -> Bool {
        let side = state.authentication[proxy: proxy]
        guard !side.refusals.isEmpty else { return false }
        let url = state.config.url
        let space = challengeSpace(
            url: url, realm: side.realm, proxyAddress: effectiveProxyAddress(state, for: url), proxy: proxy)
        return side.refusals.contains(Refusal(credential: credential, space: space))
    }
}
