import Foundation

/// Asking for credentials: the request's delegate, its block, or its queue's delegate is asked on
/// the callback queue, and the request waits for `retryUsingSuppliedCredentials()` or
/// `cancelAuthentication()`. One request asks per server (or proxy) and realm at a time; the others
/// wait and then reuse what worked. A delegate that goes away without answering fails the
/// request: it never waits for ever.
extension HTTPRequest {
    /// Runs when the server asks for credentials the request does not have; it then waits for
    /// `retryUsingSuppliedCredentials()` or `cancelAuthentication()`. On the callback queue.
    /// Replaces the delegate's `authenticationNeeded(for:)` only when the delegate has none.
    public func setAuthenticationNeededBlock(_ block: @escaping @Sendable (HTTPRequest) -> Void) {
        state.withLock { $0.blocks.authenticationNeeded = block }
    }

    /// The same for a proxy's 407.
    public func setProxyAuthenticationNeededBlock(_ block: @escaping @Sendable (HTTPRequest) -> Void) {
        state.withLock { $0.blocks.proxyAuthenticationNeeded = block }
    }

    /// Sends the request again with the credentials now set (`username`/`password`/`domain`, or
    /// the proxy's). If the URL was changed meanwhile, the new one is used. Credentials the server
    /// (or proxy) already refused for this request and realm are not sent again: the request
    /// fails with `authentication` instead. Does nothing unless the request waits for
    /// credentials. Any thread.
    public func retryUsingSuppliedCredentials() {
        let actions = state.withLock { state -> RequestActions in
            guard let proxy = state.core.awaitedCredentials else { return .none }
            return Self.supply(state.config.auth.ownCredential(proxy: proxy), from: .request, proxy: proxy, in: &state)
        }
        perform(actions)
    }

    /// Gives up waiting for credentials: the request fails with `authentication`. Does nothing
    /// unless the request waits for credentials. Any thread.
    public func cancelAuthentication() {
        send(.credentialsDecided(.declined))
    }

    // MARK: - Asking

    /// Asks whoever answers for credentials, unless another request is asking for the same
    /// ones: then waits for it; or unless one finished asking since this request looked in the
    /// stores (`answers`): then looks again, as a waiting request does.
    func ask(proxy: Bool, key: CredentialPrompts.Key, lookedUpAfter answers: Int, queueAsker: AnyObject?) {
        switch CredentialPrompts.shared.begin(key, for: self, lookedUpAfter: answers) {
        case .ask: break
        case .wait: return
        case .lookAgain:
            send(.credentialsDecided(.anotherRequestAnswered))
            return
        }
        let asker = state.withLock { state -> Asker? in
            guard state.core.awaitedCredentials == proxy else { return nil }
            state.authentication[proxy: proxy].askingKey = key
            if let delegate = state.delegate as? HTTPRequestAuthenticationDelegate {
                _ = state.core.handle(.credentialsDeciderAsked(delegate))
                return .delegate
            }
            if (proxy ? state.blocks.proxyAuthenticationNeeded : state.blocks.authenticationNeeded) != nil {
                return .block
            }
            if let queueAsker {
                _ = state.core.handle(.credentialsDeciderAsked(queueAsker))
                return .queueDelegate
            }
            return nil
        }
        guard let asker else {
            releaseCredentialPrompts()
            return
        }
        let host = key.host
        Log.message("\(proxy ? "the proxy" : host) asks for credentials for \(Log.masked(url))")
        postEvent {
            // Read again here, on the callback queue: delegates are not Sendable.
            let (delegate, block) = self.state.withLock { state in
                (
                    state.core.credentialsDecider as? HTTPRequestAuthenticationDelegate,
                    proxy ? state.blocks.proxyAuthenticationNeeded : state.blocks.authenticationNeeded
                )
            }
            if asker == .block {
                block?(self)
            } else if let delegate {
                if proxy {
                    delegate.proxyAuthenticationNeeded(for: self)
                } else {
                    delegate.authenticationNeeded(for: self)
                }
            }
        }
        // A delegate released before it answers fails the request (`RequestEvent.deciderGone`).
        if asker != .block { DeciderWatch.shared.watch(self) }
    }

    /// Who is asked: the request's delegate, its block, or its queue's delegate.
    private enum Asker: Sendable {
        case delegate
        case block
        case queueDelegate
    }

    /// Asks on the terminal, off the engine thread and the callback queue.
    func presentDialog(_ prompt: AuthenticationPrompt, proxy: Bool) {
        let terminal =
            TerminalAuthenticationDialog.terminalPathOverride.current ?? TerminalAuthenticationDialog.terminalPath
        TerminalAuthenticationDialog.present(prompt, terminalPath: terminal, on: .global()) { answer in
            let actions = self.state.withLock { state -> RequestActions in
                guard state.core.awaitedCredentials == proxy else { return .none }
                guard let answer else { return state.core.handle(.credentialsDecided(.noneOnTerminal)) }
                return Self.supply(answer, from: .dialog, proxy: proxy, in: &state)
            }
            self.perform(actions)
        }
    }

    /// The credentials supplied for the awaited challenge (the request's own, or the terminal's
    /// answer) go out with the challenge's method, unless the server or proxy already refused them
    /// for this request and realm: sent again, they would be refused again, a loop that locks
    /// accounts. The core decides what follows. Under the request's lock.
    private static func supply(
        _ credential: StoredCredential?, from source: CredentialSource, proxy: Bool, in state: inout RequestState
    ) -> RequestActions {
        var refusedBefore = false
        if let credential {
            refusedBefore = wasRefused(credential, proxy: proxy, state: state)
            if !refusedBefore {
                let method = state.authentication[proxy: proxy].scheme.flatMap(AuthenticationMethod.init(token:))
                state.authentication.choose(
                    PresentedCredential(credential: credential, method: method, source: source, answersChallenge: true),
                    proxy: proxy, for: state.config.url)
            }
        }
        return state.core.handle(.credentialsDecided(.supplied(refusedBefore: refusedBefore)))
    }

    /// This request no longer asks (its credentials worked, or it ended): the requests that waited
    /// for its answer look again, in the session store first.
    func releaseCredentialPrompts() {
        let keys = state.withLock { state -> [CredentialPrompts.Key] in
            defer {
                state.authentication.server.askingKey = nil
                state.authentication.proxy.askingKey = nil
            }
            return [state.authentication.server.askingKey, state.authentication.proxy.askingKey].compactMap { $0 }
        }
        for key in keys {
            // Each looks again off this thread (`RequestAction.answerChallenge`), its store first.
            for waiting in CredentialPrompts.shared.finish(key, for: self) {
                waiting.send(.credentialsDecided(.anotherRequestAnswered))
            }
        }
    }
}
