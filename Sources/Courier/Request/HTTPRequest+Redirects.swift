import Foundation

/// Courier follows redirects itself (libcurl's CURLOPT_FOLLOWLOCATION is off) to apply ASI's
/// rules: 301, 302 and 303 become a GET without body or the user's headers (but User-Agent and
/// Accept); `shouldUseRFC2616RedirectBehaviour` keeps 301 and 302 whole; 307 and 308 keep
/// method, body and headers; the hop after `maxRedirects` (5) fails. Credentials and the user's Cookie header never
/// go to another host or port, or from https to http, unless asked.
extension HTTPRequest {
    /// Follow 301, 302, 303, 307 and 308 (true); false stops at the redirect response.
    public var shouldRedirect: Bool {
        get { read(\.config.shouldRedirect) }
        set { write(\.config.shouldRedirect, newValue) }
    }

    /// ASI's limit: the sixth redirect of a request fails with `tooMuchRedirection`.
    public static let defaultMaxRedirects = 5

    /// How many redirects a request follows before the next one fails it with
    /// `tooMuchRedirection` (`defaultMaxRedirects`, 5, as ASI). 0 refuses every redirect, as a
    /// failure; to stop at a redirect and keep its response instead, set `shouldRedirect` false.
    public var maxRedirects: Int {
        get { read(\.config.maxRedirects) }
        set { write(\.config.maxRedirects, max(0, newValue)) }
    }

    /// Keep method, body and headers on 301 and 302, as RFC 2616 says (false: ASI's GET).
    public var shouldUseRFC2616RedirectBehaviour: Bool {
        get { read(\.config.shouldUseRFC2616RedirectBehaviour) }
        set { write(\.config.shouldUseRFC2616RedirectBehaviour, newValue) }
    }

    /// Send Authorization, credentials and the user's Cookie header to another host or port, or
    /// from https to http, after a redirect (false: they are dropped). `requestCookies` never
    /// follow a redirect, whatever this says.
    public var shouldSendCredentialsAcrossRedirects: Bool {
        get { read(\.config.shouldSendCredentialsAcrossRedirects) }
        set { write(\.config.shouldSendCredentialsAcrossRedirects, newValue) }
    }

    /// How many redirects the request has followed.
    public var redirectCount: Int { read(\.core.redirectCount) }

    /// Performed on the delegate instead of `request(_:willRedirectTo:)`; the request waits for
    /// `redirect(to:)`.
    public func setWillRedirectSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self, URL) -> Void) {
        state.withLock {
            $0.selectors.willRedirect = { target, request, url in
                guard let target = target as? D, let request = request as? Self else { return false }
                selector(target)(request, url)
                return true
            }
        }
    }

    /// Performed on the delegate instead of `requestRedirected(_:)`.
    public func setRequestRedirectedSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self) -> Void) {
        state.withLock {
            $0.selectors.requestRedirected = { target, request in
                guard let target = target as? D, let request = request as? Self else { return }
                selector(target)(request)
            }
        }
    }

    /// Runs when the request decides to follow a redirect, after the delegate.
    public func setRequestRedirectedBlock(_ block: @escaping @Sendable (Self) -> Void) {
        state.withLock {
            $0.blocks.requestRedirected = { request in
                if let request = request as? Self { block(request) }
            }
        }
    }

    /// Continues a redirect the request is waiting on (a redirect delegate or selector was asked),
    /// to `url`, which may differ from the one the server gave. Any thread.
    public func redirect(to url: URL) {
        send(.redirectDecided(url))
    }

    // MARK: - Following

    /// The response was a redirect (`RequestCore` decided to follow it): check where it goes,
    /// then wait for the hop's callbacks before deciding (`RequestAction.decideRedirect`).
    ///
    /// The request waits (as for a redirect delegate) until the callbacks already posted for this
    /// hop have run: `requestRedirected` and the redirect's headers callback then always see the
    /// request as it was when the redirect was decided, its `url` the one that answered with the
    /// redirect and `redirectCount` not yet counting it, as ASI's requestRedirected did (ASI
    /// changed `url` only in performRedirect, after the body).
    func followRedirect(to location: String?, status: Int) {
        guard let next = RedirectPolicy.target(of: location, from: url) else {
            finishAttempt(
                .failed(
                    HTTPRequestError(
                        type: .connectionFailure, message: "The server answered \(status) without a usable Location",
                        url: url)))
            return
        }
        send(.redirectReceived(status: status, next: next))
    }

    /// On the callback queue, after the hop's callbacks: the core counts the redirect, then
    /// follows it, asks whoever decides, or fails over the limit.
    func decideRedirect(_ pending: RedirectHop.Pending) {
        let queueAsks = notifyQueue { $0.asksBeforeRedirect } ?? false
        let actions = state.withLock { state -> RequestActions in
            let policy = RedirectPolicy(state.config)
            let delegateAsks =
                state.delegate is HTTPRequestRedirectDelegate
                || (state.delegate != nil && state.selectors.willRedirect != nil)
            let hop = RedirectHop(
                pending: pending, asks: delegateAsks || queueAsks, policy: policy, url: state.config.url)
            return state.core.handle(.redirectHopReached(hop))
        }
        for action in actions {
            switch action {
            case .followRedirect, .askWhereToRedirect:
                Log.message("redirect \(pending.status) from \(Log.masked(url)) to \(Log.masked(pending.next))")
            default:
                break
            }
        }
        perform(actions)
    }

    /// `RequestAction.followRedirect`: the hop's configuration, then its attempt.
    func go(to next: URL, afterRedirectWith status: Int) {
        do {
            try RequestValidation.validate(url: next)
        } catch {
            finishAttempt(
                .failed(
                    HTTPRequestError(
                        type: .unableToCreateRequest,
                        message: "The server redirected to \(Log.masked(next)), which is not an http or https URL",
                        url: url)))
            return
        }
        let actions = state.withLock { state -> RequestActions in
            guard state.core.isPreparing else { return .none }
            Self.apply(redirectTo: next, status: status, to: &state.config)
            return state.core.handle(.redirectFollowed)
        }
        perform(actions)
    }

    /// Applies `RedirectPolicy`'s answer for the next hop to the configuration.
    static func apply(redirectTo next: URL, status: Int, to config: inout RequestConfiguration) {
        let hop = RedirectPolicy(config).hop(
            status: status, method: config.requestMethod, from: config.url, to: next)
        config.requestHeaders = RedirectPolicy.headers(config.requestHeaders, for: hop)
        // ASI cleared them on every hop, whatever the host: only the jar's cookies follow.
        config.requestCookies = []
        if hop.becomesGET {
            config.requestMethod = hop.method
            config.methodWasSet = true
            config.postBody = nil
            config.bodyStream = nil
            config.postBodyFilePath = nil
            config.diskBody = []
            config.builtBodyContentType = nil
        }
        config.url = hop.url
    }

    // MARK: - Notifying

    /// The request decided to follow a redirect: delegate (or selector), then block.
    func notifyRedirected() {
        let (delegate, selector, block) = state.withLock {
            ($0.delegate, $0.selectors.requestRedirected, $0.blocks.requestRedirected)
        }
        fanOut(
            to: delegate, selector: selector, block: block, performing: { $0($1, self) },
            orCalling: { $0.requestRedirected(self) }, then: { $0(self) })
    }

    /// Asks the request's redirect delegate or selector, or else its queue's, where to go. With
    /// nobody left to ask (released since the request decided to ask, or of another type), the
    /// request goes on as if none had been set; so it does if the one it asked is released
    /// before calling `redirect(to:)` (`RequestEvent.deciderGone`, from `DeciderWatch`).
    func askWhereToRedirect(_ url: URL) {
        let (delegate, selector) = state.withLock { ($0.delegate, $0.selectors.willRedirect) }
        let decider: AnyObject?
        if let delegate, let selector {
            // A delegate of another type cannot decide: the request goes on by itself.
            decider = selector(delegate, self, url) ? delegate : nil
        } else if let redirectDelegate = delegate as? HTTPRequestRedirectDelegate {
            redirectDelegate.request(self, willRedirectTo: url)
            decider = redirectDelegate
        } else {
            decider = notifyQueue { $0.request(self, willRedirectTo: url) }
        }
        guard let decider else {
            redirect(to: url)
            return
        }
        send(.redirectDeciderAsked(decider))
        DeciderWatch.shared.watch(self)
    }
}

/// A delegate that decides redirects: the request waits until `redirect(to:)` is called (or it
/// is cancelled). Called on the request's callback queue.
public protocol HTTPRequestRedirectDelegate: HTTPRequestDelegate {
    /// The server redirects `request` to `url`; call `request.redirect(to:)` with that URL or
    /// another, or cancel the request.
    func request(_ request: HTTPRequest, willRedirectTo url: URL)
}
