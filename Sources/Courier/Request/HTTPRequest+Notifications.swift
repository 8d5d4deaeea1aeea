import Foundation

/// The default bodies of the subclass hooks: delegate (or its selector) first, then the block,
/// as ASI ordered them. Run on the callback thread, outside the lock.
extension HTTPRequest {
    /// The one fan-out of an event to a request's listeners, on the callback thread, in ASI's
    /// order: the subclass hook, whose default tells the delegate (or performs the selector that
    /// replaces its method) and then calls the block; then the queue's delegate. A finish or
    /// failure goes through `deliverTerminal`, which tells the queue after the request ended.
    func announce(_ event: AnnouncedEvent) {
        switch event {
        case .started:
            requestStarted()
            notifyQueue { $0.requestDidStart(self) }
        case .redirected:
            // ASI's queue has no redirect callback.
            notifyRedirected()
        case .headersReceived(let headers):
            requestReceivedResponseHeaders(headers)
            notifyQueue { $0.request(self, didReceiveResponseHeaders: headers) }
        }
    }

    /// The delegate's method, or the selector set in its place, then the block: what every
    /// default hook and the data and redirect callbacks do. Outside the lock.
    @inline(__always)
    func fanOut<Selector, Block>(
        to delegate: (any HTTPRequestDelegate)?, selector: Selector?, block: Block?,
        performing perform: (Selector, any HTTPRequestDelegate) -> Void,
        orCalling method: (any HTTPRequestDelegate) -> Void,
        then call: (Block) -> Void
    ) {
        Engine.assertNotEngineThread("a callback")
        if let delegate {
            if let selector { perform(selector, delegate) } else { method(delegate) }
        }
        if let block { call(block) }
    }

    func notifyStarted() {
        let targets = state.withLock {
            CallbackTargets(delegate: $0.delegate, selector: $0.selectors.didStart, block: $0.blocks.started)
        }
        fanOut(
            to: targets.delegate, selector: targets.selector, block: targets.block,
            performing: { $0($1, self) }, orCalling: { $0.requestStarted(self) }, then: { $0(self) })
    }

    func notifyHeadersReceived(_ headers: HTTPHeaders) {
        let (delegate, selector, block) = state.withLock {
            ($0.delegate, $0.selectors.didReceiveResponseHeaders, $0.blocks.headersReceived)
        }
        fanOut(
            to: delegate, selector: selector, block: block, performing: { $0($1, self, headers) },
            orCalling: { $0.request(self, didReceiveResponseHeaders: headers) }, then: { $0(self, headers) })
    }

    func notifyFinished() {
        notifyTerminal(error: nil) { $0.requestFinished($1) }
    }

    func notifyFailed(_ error: HTTPRequestError) {
        notifyTerminal(error: error) { $0.requestFailed($1) }
    }

    /// Finished (no error) or failed, exactly once: a subclass that fails from
    /// `requestFinished()` does not notify twice.
    private func notifyTerminal(
        error: HTTPRequestError?,
        protocolMethod: (any HTTPRequestDelegate, HTTPRequest) -> Void
    ) {
        let targets = state.withLock { state -> CallbackTargets? in
            guard state.core.handle(.terminalNotifying(error: error)).proceeds else { return nil }
            guard error != nil else {
                return CallbackTargets(
                    delegate: state.delegate, selector: state.selectors.didFinish, block: state.blocks.completion)
            }
            return CallbackTargets(
                delegate: state.delegate, selector: state.selectors.didFail, block: state.blocks.failed)
        }
        guard let targets else { return }
        fanOut(
            to: targets.delegate, selector: targets.selector, block: targets.block,
            performing: { $0($1, self) }, orCalling: { protocolMethod($0, self) }, then: { $0(self) })
    }
}

/// An event `announce` fans out.
enum AnnouncedEvent {
    case started
    /// The request follows a redirect (before the headers of the response that redirected).
    case redirected
    case headersReceived(HTTPHeaders)
}

/// Who hears a request's start, finish or failure. A struct rather than a tuple: closures in a
/// tuple returned through the generic `withLock` are re-wrapped (an allocation each); in a struct
/// they keep their own form.
private struct CallbackTargets {
    var delegate: (any HTTPRequestDelegate)?
    var selector: RequestSelectors.Plain?
    var block: RequestBlocks.Plain?
}
