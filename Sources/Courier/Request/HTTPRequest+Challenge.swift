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
        case retry(RequestActions)
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
        var ladder: ChallengeLadder
        var own: (credential: StoredCredential, source: CredentialSource)?
        var refused: Set<StoredCredential>
        var wasRefused: Bool
        /// The proxy the request went through (set by hand, the PAC file's choice, or the
        /// environment's), as proxy credentials are keyed.
        var proxyAddress: ProxyAddress?
    }

    /// What reading the challenge leads to.
    private enum ChallengeReading {
        /// A stale Digest nonce, answered again at once with the same credentials.
        case retry(RequestActions)
        case fail(HTTPRequestError)
        case lookUp(ChallengeContext)
    }

    /// `RequestAction.answerChallenge`: off the engine thread, as the lookup may read the
    /// credential file under its flock.
    func answerChallenge(proxy: Bool) {
        let first = state.withLock { Self.readChallenge(&$0, proxy: proxy) }
        let context: ChallengeContext
        switch first {
        case .retry(let actions): return perform(actions)
        case .fail(let error): return finishAttempt(.failed(error))
        case .lookUp(let found): context = found
        }
        let key = Self.challengeSpace(
            url: context.url, realm: context.challenge.realm, proxyAddress: context.proxyAddress, proxy: proxy)
        // Taken before the stores are looked at: a request that finished asking for the same
        // credentials after that (and saved them) makes this one look again rather than ask.
        let answers = CredentialPrompts.shared.answersSoFar(key)
        let found = lookUpCredentials(context, proxy: proxy)
        let queueAsker: AnyObject? = notifyQueue {
            $0.delegate is HTTPRequestAuthenticationDelegate ? $0.delegate : nil
        }
        let step = state.withLock { state -> ChallengeStep in
            guard state.core.isPreparing else { return .none }
            if let found {
                state.authentication.choose(
                    PresentedCredential(
                        credential: found.credential, method: context.challenge.method, source: found.source,
                        answersChallenge: true),
                    proxy: proxy, for: context.url)
                return .retry(state.core.handle(.credentialsFound(proxy: proxy)))
            }
            return Self.nextStep(&state, proxy: proxy, context: context, queueAsks: queueAsker != nil)
        }
        switch step {
        case .retry(let actions): perform(actions)
        case .ask:
            ask(proxy: proxy, key: key, lookedUpAfter: answers, queueAsker: queueAsker)
        case .dialog(let prompt): presentDialog(prompt, proxy: proxy)
        case .fail(let error): finishAttempt(.failed(error))
        case .none: break
        }
    }

    /// Records the challenge: a retry when a stale Digest nonce is answered again at once, a
    /// failure when no challenge can be answered, or what to look up.
    private static func readChallenge(_ state: inout RequestState, proxy: Bool) -> ChallengeReading {
        let url = state.config.url
        let ladder = ChallengeLadder(isProxy: proxy, settings: state.config.auth)
        var side = state.authentication[proxy: proxy]
        let reading = ladder.read(
            AuthenticationChallenge.parse(state.response.headers[ladder.challengeField].map { [$0] } ?? []),
            retriesSoFar: state.core.authenticationRetries + state.core.proxyAuthenticationRetries,
            presented: side.presented, hasRetriedStaleNonce: side.retriedStaleNonce)
        let challenge: AuthenticationChallenge
        let verdict: ChallengeLadder.Verdict
        switch reading {
        case .fail(let message): return .fail(HTTPRequestError(type: .authentication, message: message, url: url))
        case .answer(let answered, let judged): (challenge, verdict) = (answered, judged)
        }
        let proxyAddress = effectiveProxyAddress(state, for: url)
        side.scheme = challenge.method?.rawValue
        side.realm = challenge.realm
        if !proxy { side.unansweredDigest = challenge.method == .digest ? (challenge, ProtectionSpace(url: url)) : nil }
        let presented = side.presented
        side.presented = nil
        defer { state.authentication[proxy: proxy] = side }
        if verdict == .staleNonce, let presented {
            side.retriedStaleNonce = true
            side.current = presented
            return .retry(state.core.handle(.credentialsFound(proxy: proxy)))
        }
        if verdict == .refused, let presented {
            side.current = nil
            side.refusals.insert(
                Refusal(
                    credential: presented.credential,
                    space: challengeSpace(url: url, realm: challenge.realm, proxyAddress: proxyAddress, proxy: proxy)))
            if presented.source == .session { forgetRejected(presented.credential, proxy: proxy, state: state) }
        }
        let own: (credential: StoredCredential, source: CredentialSource)? =
            proxy ? state.config.auth.ownCredential(proxy: true).map { ($0, .request) } : ownCredential(state, url: url)
        return .lookUp(
            ChallengeContext(
                url: url, challenge: challenge, ladder: ladder, own: own, refused: side.refused,
                wasRefused: verdict == .refused, proxyAddress: proxyAddress))
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

    /// The ladder's rungs in order (the request's own, the session store's, the credential
    /// file's), skipping any credentials this request saw refused. Outside the lock: the file is
    /// read afresh.
    private func lookUpCredentials(
        _ context: ChallengeContext, proxy: Bool
    ) -> (credential: StoredCredential, source: CredentialSource)? {
        for rung in context.ladder.rungs {
            let found: (StoredCredential?, CredentialSource)
            switch rung {
            case .own:
                guard let own = context.own else { continue }
                found = (own.credential, own.source)
            case .sessionStore: found = (Self.sessionCredential(context, proxy: proxy), .session)
            case .credentialFile: found = (Self.savedCredential(context, proxy: proxy), .persistent)
            }
            if let credential = ChallengeLadder.usable(found.0, refused: context.refused) {
                return (credential, found.1)
            }
        }
        return nil
    }

    private static func sessionCredential(_ context: ChallengeContext, proxy: Bool) -> StoredCredential? {
        let realm = context.challenge.realm
        let method = context.challenge.method
        guard proxy else {
            return SessionCredentialStore.shared.bestMatch(for: context.url, realm: realm, method: method)?.credential
        }
        return context.proxyAddress.flatMap {
            SessionCredentialStore.shared.bestProxyMatch(host: $0.host, port: $0.port, realm: realm, method: method)?
                .credential
        }
    }

    private static func savedCredential(_ context: ChallengeContext, proxy: Bool) -> StoredCredential? {
        let realm = context.challenge.realm
        do {
            if proxy {
                return try context.proxyAddress.flatMap {
                    try PersistentCredentialStore.proxyCredential(host: $0.host, port: $0.port, realm: realm)
                }
            }
            guard let space = ProtectionSpace(url: context.url) else { return nil }
            return try PersistentCredentialStore.credential(
                protocol: space.scheme, host: space.host, port: space.port, realm: realm)
        } catch {
            Log.message("the credential file was not used: \(error)")
            return nil
        }
    }

    /// Nothing was found: ask, present the dialog, or fail. Under the lock.
    private static func nextStep(
        _ state: inout RequestState, proxy: Bool, context: ChallengeContext, queueAsks: Bool
    ) -> ChallengeStep {
        let delegateAsks = state.delegate is HTTPRequestAuthenticationDelegate
        let blockAsks = (proxy ? state.blocks.proxyAuthenticationNeeded : state.blocks.authenticationNeeded) != nil
        let prompt = context.ladder.presentsDialog ? prompt(for: context, proxy: proxy) : nil
        let fallback = context.ladder.fallback(
            isSynchronous: state.mailbox?.isSynchronous ?? false, hasAsker: delegateAsks || blockAsks || queueAsks,
            canPrompt: prompt != nil, wasRefused: context.wasRefused, realm: context.challenge.realm)
        switch fallback {
        case .ask:
            return state.core.handle(.credentialsAwaited(proxy: proxy, decider: nil)).proceeds ? .ask : .none
        case .presentDialog:
            guard let prompt else { return .none }
            return state.core.handle(.credentialsAwaited(proxy: proxy, decider: nil)).proceeds ? .dialog(prompt) : .none
        case .fail(let message):
            return .fail(HTTPRequestError(type: .authentication, message: message, url: context.url))
        }
    }

    private static func prompt(for context: ChallengeContext, proxy: Bool) -> AuthenticationPrompt? {
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
