import Foundation

/// The default bodies of the subclass hooks: delegate (or its selector) first, then the block,
/// as ASI ordered them. Run on the callback thread, outside the lock.
extension HTTPRequest {
    func notifyStarted() {
        let (delegate, selector, block) = state.withLock { ($0.delegate, $0.selectors.didStart, $0.blocks.started) }
        if let delegate {
            if let selector { selector(delegate, self) } else { delegate.requestStarted(self) }
        }
        block?(self)
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
        let notify = state.withLock {
            state -> (
                delegate: (any HTTPRequestDelegate)?, selector: RequestSelectors.Plain?, block: RequestBlocks.Plain?
            )? in
            guard !state.terminalNotified else { return nil }
            state.terminalNotified = true
            return (state.delegate, state.selectors.didFinish, state.blocks.completion)
        }
        guard let notify else { return }
        if let delegate = notify.delegate {
            if let selector = notify.selector { selector(delegate, self) } else { delegate.requestFinished(self) }
        }
        notify.block?(self)
    }

    func notifyFailed(_ error: HTTPRequestError) {
        let notify = state.withLock {
            state -> (
                delegate: (any HTTPRequestDelegate)?, selector: RequestSelectors.Plain?, block: RequestBlocks.Plain?
            )? in
            guard !state.terminalNotified else { return nil }
            state.terminalNotified = true
            state.error = error
            return (state.delegate, state.selectors.didFail, state.blocks.failed)
        }
        guard let notify else { return }
        if let delegate = notify.delegate {
            if let selector = notify.selector { selector(delegate, self) } else { delegate.requestFailed(self) }
        }
        notify.block?(self)
    }
}
