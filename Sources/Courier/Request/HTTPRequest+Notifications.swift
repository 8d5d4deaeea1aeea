import Foundation

/// The default bodies of the subclass hooks: delegate (or its selector) first, then the block,
/// as ASI ordered them. Run on the callback thread, outside the lock.
extension HTTPRequest {
    func notifyStarted() {
        let targets = state.withLock {
            CallbackTargets(delegate: $0.delegate, selector: $0.selectors.didStart, block: $0.blocks.started)
        }
        if let delegate = targets.delegate {
            if let selector = targets.selector { selector(delegate, self) } else { delegate.requestStarted(self) }
        }
        targets.block?(self)
    }

    func notifyHeadersReceived(_ headers: HTTPHeaders) {
        let (delegate, selector, block) = state.withLock {
            ($0.delegate, $0.selectors.didReceiveResponseHeaders, $0.blocks.headersReceived)
        }
        if let delegate {
            if let selector {
                selector(delegate, self, headers)
            } else {
                delegate.request(self, didReceiveResponseHeaders: headers)
            }
        }
        block?(self, headers)
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
            guard state.machine.claimTerminalNotification() else { return nil }
            guard let error else {
                return CallbackTargets(
                    delegate: state.delegate, selector: state.selectors.didFinish, block: state.blocks.completion)
            }
            state.error = error
            return CallbackTargets(
                delegate: state.delegate, selector: state.selectors.didFail, block: state.blocks.failed)
        }
        guard let targets else { return }
        if let delegate = targets.delegate {
            if let selector = targets.selector { selector(delegate, self) } else { protocolMethod(delegate, self) }
        }
        targets.block?(self)
    }
}

/// Who hears a request's start, finish or failure. A struct rather than a tuple: closures in a
/// tuple returned through the generic `withLock` are re-wrapped (an allocation each); in a struct
/// they keep their own form.
private struct CallbackTargets {
    var delegate: (any HTTPRequestDelegate)?
    var selector: RequestSelectors.Plain?
    var block: RequestBlocks.Plain?
}
