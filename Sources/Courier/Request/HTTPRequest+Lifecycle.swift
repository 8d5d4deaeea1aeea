import Foundation

extension HTTPRequest {
    /// The queue `startAsynchronous()` adds requests to: 4 at a time.
    static let sharedOperationQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "Courier shared queue"
        queue.maxConcurrentOperationCount = 4
        return queue
    }()

    /// Runs the request on the calling thread's behalf and returns when it has finished or
    /// failed. Every callback runs on this thread, in order, before it returns, the main thread
    /// included; `callbackQueue` is not used.
    public func startSynchronous() {
        let mailbox = CallbackMailbox()
        let isFresh = state.withLock { state -> Bool in
            guard state.machine.phase == .idle, !state.isEnqueued else { return false }
            state.mailbox = mailbox
            return true
        }
        guard isFresh else { return }
        start()
        mailbox.waitAndDrain { self.read(\.machine).isFinished }
    }

    /// Adds the request to Courier's shared queue (4 at a time) and returns at once; callbacks
    /// arrive on `callbackQueue`.
    public func startAsynchronous() {
        guard claimForQueue() else { return }
        HTTPRequest.sharedOperationQueue.addOperation(self)
    }

    /// Marks the request as handed to a queue; false if it already was or has started, since an
    /// operation may be enqueued only once.
    func claimForQueue() -> Bool {
        state.withLock { state in
            guard !state.isEnqueued, state.machine.phase == .idle else { return false }
            state.isEnqueued = true
            return true
        }
    }

    /// Forgets the delegate, selectors and blocks, then cancels: no request callback runs.
    public func clearDelegatesAndCancel() {
        state.withLock { state in
            state.delegate = nil
            state.selectors = RequestSelectors()
            state.blocks = RequestBlocks()
        }
        cancel()
    }

    /// True once the request has finished or failed.
    public var complete: Bool { read(\.machine).isComplete }

    // MARK: - Driving the state machine

    func startOperation() {
        let action = state.withLock { state -> RequestStateMachine.StartAction in
            let action = state.machine.start()
            if action == .run, state.mailbox == nil {
                state.mailbox = CallbackMailbox(queue: state.config.callbackQueue)
            }
            return action
        }
        switch action {
        case .run:
            willChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isExecuting")
            beginAttempt()
        case .postFinished:
            postFinished()
        case .none:
            break
        }
    }

    func cancelRequest() {
        let error = HTTPRequestError.cancelled(read(\.config.url))
        let (action, transfer, mailbox) = state.withLock { state in
            let action = state.machine.cancel(error)
            if case .deliverFailure = action {
                state.error = error
                if state.mailbox == nil { state.mailbox = CallbackMailbox(queue: state.config.callbackQueue) }
            }
            return (action, state.transfer, state.mailbox)
        }
        guard case .deliverFailure(let stopTransfer) = action, let mailbox else { return }
        if stopTransfer, let transfer {
            transfer.abandon()
            Engine.shared.cancel(transfer, with: error)
        }
        mailbox.post { self.deliverTerminal(.failed(error)) }
    }

    /// Decides how the request ends; the first decision wins (a cancel may have come first).
    func complete(_ outcome: RequestStateMachine.Outcome) {
        let mailbox = state.withLock { state -> CallbackMailbox? in
            guard state.machine.complete(outcome) else { return nil }
            state.transfer = nil
            if case .failed(let error) = outcome { state.error = error }
            return state.mailbox
        }
        mailbox?.post { self.deliverTerminal(outcome) }
    }

    /// Posts a non-terminal event; it is dropped if the request was cancelled before it ran, so
    /// nothing but the one failure arrives after `cancel()`.
    func postEvent(_ event: @escaping @Sendable () -> Void) {
        let mailbox = read(\.mailbox)
        mailbox?.post {
            guard !self.read(\.machine).isCancelled else { return }
            event()
        }
    }

    /// Runs the terminal hook, then marks the operation finished: `isFinished` comes after the
    /// last callback.
    private func deliverTerminal(_ outcome: RequestStateMachine.Outcome) {
        switch outcome {
        case .finished: requestFinished()
        case .failed(let error): failWithError(error)
        }
        let (action, observers) = state.withLock { state in
            let action = state.machine.terminalCallbackDelivered()
            defer { state.terminalObservers = [] }
            return (action, state.terminalObservers)
        }
        if action == .postFinished { postFinished() }
        for observer in observers { observer() }
    }

    private func postFinished() {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }
}
