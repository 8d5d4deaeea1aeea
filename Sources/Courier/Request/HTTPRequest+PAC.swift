import Foundation

/// What a request's PAC file decided for the URL it is working on, in `RequestState`.
struct PACRequestState: Sendable {
    /// The `PACResolver.key` the decision is for; nil before any.
    var key: String?
    /// The choices to try, in order, and the one the next attempt uses.
    var choices: [PACChoice] = []
    var index = 0
    /// The broken PAC file's error, which the next attempt fails with.
    var failure: HTTPRequestError?
    /// Set on the request that fetches a PAC file: it goes direct, whatever the environment says.
    var isForcedDirect = false

    init() {}

    init(key: String, decision: PACDecision) {
        self.key = key
        switch decision {
        case .choices(let choices): self.choices = choices
        case .failure(let error): failure = error
        }
    }

    init(forcedDirect: Void) {
        isForcedDirect = true
    }

    /// The choice the next attempt goes by, if the PAC file made one.
    var current: PACChoice? {
        if isForcedDirect { return .direct }
        return index < choices.count ? choices[index] : nil
    }
}

extension HTTPRequest {
    /// A proxy auto-configuration file (a `file:`, `http:` or `https:` URL) whose
    /// `FindProxyForURL(url, host)` chooses the proxy for each host this request goes to
    /// (redirect hops included). Ignored when `proxyHost` is set, as in ASI. A file that cannot be
    /// fetched within `timeOutSeconds` means no proxy (logged); a file that is fetched but broken
    /// fails the request with `internalErrorWhileBuildingRequest`. Each file is fetched and
    /// compiled once per process (a file on disk again after it changes) and each answer is
    /// remembered. Any thread; set it before the request starts.
    public var pacURL: URL? {
        get { read(\.config.pacURL) }
        set { write(\.config.pacURL, newValue) }
    }

    /// Whether the attempt about to begin has to ask the PAC file first: a PAC URL, no proxy set
    /// by hand, and no decision yet for this URL. Under the request's lock; costs one nil check
    /// for a request without a PAC URL.
    static func awaitsProxyDecision(_ state: inout RequestState) -> Bool {
        guard state.config.pacURL != nil, !state.pac.isForcedDirect, !hasManualProxy(state.config) else { return false }
        // A URL without a key (no host, not http) is refused by prepareAttempt instead.
        guard let key = PACResolver.key(for: state.config.url) else { return false }
        return state.pac.key != key
    }

    /// Asks the PAC file on its own queue, then begins the attempt (from that queue).
    func decideProxyThenBeginAttempt() {
        let (pacURL, url, timeout) = state.withLock { ($0.config.pacURL, $0.config.url, $0.config.timeOutSeconds) }
        guard let pacURL, let key = PACResolver.key(for: url) else { return beginAttempt() }
        PACResolver.shared.decide(pacURL: pacURL, for: url, timeout: timeout) { decision in
            // A request cancelled while the PAC file was asked has delivered its failure already:
            // nothing of an attempt is set up for it.
            let goesOn = self.state.withLock { state -> Bool in
                state.pac = PACRequestState(key: key, decision: decision)
                return state.core.phase == .executing
            }
            if goesOn { self.beginAttempt() }
        }
    }

    /// The attempt's proxy as the PAC file chose it, in place of the one `authentication` names;
    /// `authentication` unchanged when no PAC decision applies. Throws the broken PAC file's
    /// error. Under the request's lock, from `prepareAttempt`.
    static func applyingPACChoice(
        _ state: inout RequestState, to authentication: TransferAuthentication?
    ) throws(HTTPRequestError) -> TransferAuthentication? {
        guard state.pac.isForcedDirect || (state.config.pacURL != nil && !hasManualProxy(state.config)) else {
            return authentication
        }
        if let failure = state.pac.failure { throw failure }
        guard let choice = state.pac.current else { return authentication }
        // Proxy credentials go only to the proxy they were found for: one this request's proxy
        // challenged (`current`, cleared when it moves to the next choice), or the session
        // store's for the proxy `credentialsForAttempt` looked up (the environment's).
        var proxyCredentials = authentication?.proxyCredentials
        if choice == .direct {
            proxyCredentials = nil
        } else if state.authentication.proxy.current == nil,
            ProxyAddress.effective(host: nil, port: 0, for: state.config.url) != choice.address
        {
            proxyCredentials = nil
            state.authentication.proxy.presented = nil
        }
        return TransferAuthentication.make(
            server: authentication?.server, serverAuthorization: authentication?.serverAuthorization,
            proxy: choice.curlProxy, proxyCredentials: proxyCredentials)
    }

    /// Whether the PAC file names another way after the one the last attempt took.
    static func hasAnotherPACChoice(_ state: RequestState) -> Bool {
        !state.pac.isForcedDirect && state.pac.failure == nil && state.pac.index + 1 < state.pac.choices.count
    }

    /// After an attempt failed to connect to the proxy it used, moves to the PAC file's next
    /// choice and returns it; nil when the PAC file named no other. Under the request's lock,
    /// for the core's `.takeNextProxy`, before the next attempt.
    static func advanceToNextPACChoice(_ state: inout RequestState) -> PACChoice? {
        guard hasAnotherPACChoice(state) else { return nil }
        state.pac.index += 1
        // Credentials a proxy asked for belong to that proxy, not the next one.
        state.authentication.proxy.current = nil
        state.authentication.proxy.presented = nil
        return state.pac.choices[state.pac.index]
    }

    /// Whether `outcome` is an attempt that never reached the proxy `configuration` went
    /// through: the proxy's name did not resolve (CURLE_COULDNT_RESOLVE_PROXY, 5), it refused
    /// or was unreachable (CURLE_COULDNT_CONNECT, 7: through a proxy libcurl connects only to
    /// it), its SOCKS or TLS handshake failed (CURLE_PROXY, 97), or the attempt timed out before
    /// any connection was made — and nothing came back. Only then may a PAC file's next choice
    /// be tried: after that, the request may have reached the server.
    static func failedToReachProxy(_ outcome: TransferOutcome, through configuration: TransferConfiguration) -> Bool {
        guard let proxy = configuration.authentication?.proxy, !proxy.isEmpty, let failure = outcome.failure,
            outcome.head == nil, outcome.bytesReceived == 0
        else { return false }
        if let code = failure.curlCode, [5, 7, 97].contains(code) { return true }
        return failure.type == .requestTimedOut && outcome.metrics.connect == 0
    }

    /// The proxy the request goes through for `url`, as credentials are keyed: the one set by
    /// hand, else the PAC file's current choice, else the environment's. Under the request's
    /// lock. (The credential lookups use `ProxyAddress.effective` today, which knows no PAC.)
    static func effectiveProxyAddress(_ state: RequestState, for url: URL) -> ProxyAddress? {
        let settings = state.config.auth
        if hasManualProxy(state.config) || state.config.pacURL == nil || state.pac.key != PACResolver.key(for: url) {
            return ProxyAddress.effective(host: settings.proxyHost, port: settings.proxyPort, for: url)
        }
        return state.pac.current?.address
    }

    /// What `proxyHost`, `proxyPort` and `proxyType` read. Once the PAC file chose for an
    /// attempt, that choice, as ASI filled them in from the script's answer: for DIRECT no host
    /// and port 0, with the type as set (ProxyType has no "none"). Otherwise what was set. The
    /// configuration keeps only what the user set, so a later hop or a `copy()` asks the file
    /// again. Under the request's lock (`inout` only to pass the state without a copy).
    static func reportedProxy(_ state: inout RequestState) -> (host: String?, port: Int, type: ProxyType) {
        let settings = state.config.auth
        guard state.pac.isForcedDirect || (state.config.pacURL != nil && !hasManualProxy(state.config)),
            state.pac.failure == nil, let choice = state.pac.current
        else { return (settings.proxyHost, settings.proxyPort, settings.proxyType) }
        switch choice {
        case .direct: return (nil, 0, settings.proxyType)
        case .proxy(let kind, let host, let port): return (host, port, kind.proxyType)
        }
    }

    private static func hasManualProxy(_ config: RequestConfiguration) -> Bool {
        guard let host = config.auth.proxyHost else { return false }
        return !host.isEmpty
    }
}
