import Foundation

extension HTTPRequest {
    /// Runs the request on the calling thread's behalf and returns when it has finished or
    /// failed. Every callback runs on this thread, in order, before it returns, the main thread
    /// included; `callbackQueue` is not used.
    public func startSynchronous() {
        let mailbox = CallbackMailbox()
        let isFresh = state.withLock { state -> Bool in
            guard state.machine.mayRunSynchronously else { return false }
            state.mailbox = mailbox
            return true
        }
        guard isFresh else { return }
        start()
        mailbox.waitAndDrain { self.state.withLock { $0.machine.isFinished } }
    }

    /// Adds the request to `HTTPRequest.sharedQueue` (4 at a time) and returns at once;
    /// callbacks arrive on `callbackQueue`. Does nothing for a request already queued or started.
    public func startAsynchronous() {
        // A request cancelled before it started still goes to the queue, which finishes it.
        let isFresh = state.withLock { $0.machine.mayEnqueue }
        guard isFresh else { return }
        HTTPRequest.sharedQueue.addOperation(self)
    }

    /// What a queue needs to know of a request joining it.
    struct Joining {
        /// Cancelled before it joined: its failure has been delivered already.
        var isComplete: Bool
        /// The body it will send (for accurate upload progress).
        var postLength: Int64
        var isGET: Bool
    }

    /// Marks the request as handed to a queue; nil if it already was or has started, since an
    /// operation may be enqueued only once.
    func claimForQueue() -> Joining? {
        state.withLock { state in
            guard let isCounted = state.machine.enqueue() else { return nil }
            return Joining(
                isComplete: !isCounted, postLength: Self.postLength(of: &state, measuring: false),
                isGET: Self.effectiveMethod(of: state.config) == "GET")
        }
    }

    /// Forgets the delegate, selectors, blocks and progress delegates, then cancels: no request
    /// callback runs, and its queue calls no selector for it (but still counts it as done).
    public func clearDelegatesAndCancel() {
        state.withLock { state in
            state.delegate = nil
            state.selectors = RequestSelectors()
            state.blocks = RequestBlocks()
            state.downloadProgressDelegate = nil
            state.uploadProgressDelegate = nil
            state.machine.stopNotifyingQueue()
        }
        cancel()
    }

    /// True once the request has finished or failed.
    public var complete: Bool { state.withLock { $0.machine.isComplete } }

    // MARK: - Driving the state machine

    func startOperation() {
        let isCancelled = isCancelled
        let (action, rescans) = state.withLock { state -> (RequestStateMachine.StartAction, Bool) in
            let action = state.machine.start(mayBegin: !isCancelled)
            if action == .run { Self.prepareMailbox(in: &state) }
            // The OperationQueue starts a request with dependencies once they have finished:
            // if its NetworkQueue passed it over for them, the queue looks again.
            return (action, state.machine.takeDependencyWait())
        }
        if rescans { read(\.queue)?.startWaitingRequests() }
        switch action {
        case .run:
            // corelibs' Operation marks itself executing when told; it has no KVO observers to
            // tell on Linux.
            willChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isExecuting")
            beginAttempt()
        case .postFinished:
            postFinished()
        case .none:
            break
        }
    }

    /// The request's NetworkQueue gave it a slot: the first attempt begins here and now, on the
    /// thread that freed the slot (the OperationQueue holding the request has started it
    /// already, or soon will; that only marks the operation started). A HEAD probe is no
    /// operation: its slot starts it.
    func runGrantedByQueue() {
        let (begins, isProbe) = state.withLock { state -> (Bool, Bool) in
            guard !state.machine.isProbe else { return (false, true) }
            guard state.machine.begin() else { return (false, false) }
            Self.prepareMailbox(in: &state)
            return (true, false)
        }
        if isProbe {
            start()
        } else if begins {
            beginAttempt()
        }
    }

    /// The callbacks' mailbox for an asynchronous run, on the queue's callback queue (or the
    /// request's own). A synchronous run has made its own already.
    private static func prepareMailbox(in state: inout RequestState) {
        guard state.mailbox == nil else { return }
        state.mailbox = makeAsynchronousMailbox(in: &state)
    }

    /// A mailbox drained on the callback queue: the queue's (a NetworkQueue of the user's) or
    /// the request's own, through that dispatch queue's one drainer (the NetworkQueue's cached
    /// one when it is the same queue, so most requests skip the look-up).
    private static func makeAsynchronousMailbox(in state: inout RequestState) -> CallbackMailbox {
        let callbackQueue = state.queueCallbackQueue ?? state.config.callbackQueue
        let drainer = state.drainer.flatMap { $0.queue === callbackQueue ? $0 : nil } ?? CallbackDrainer.for(callbackQueue)
        return CallbackMailbox(drainer: drainer, owner: state.queue.map(ObjectIdentifier.init))
    }

    func cancelRequest() {
        end(with: .cancelled(read(\.config.url)))
    }

    /// Ends the request now with `error`, running or not: the transfer stops, the failure
    /// callbacks run, and a request that never started finishes when its queue starts it.
    ///
    /// A transfer with the engine is stopped first, and the failure is posted only once the
    /// engine reports it ended (`stoppedTransferEnded`): so by the time the request is finished,
    /// none of its bytes can reach its file, its memory or its data delegate, and a resume of
    /// the same temporary file cannot interleave with the cancelled transfer's writes.
    func end(with error: HTTPRequestError) {
        let (action, mailbox, awaitedCredentials) = state.withLock { state in
            let awaitedCredentials = state.machine.awaitedCredentials != nil
            let action = state.machine.cancel(error)
            if action != .none {
                state.error = error
                if state.mailbox == nil { state.mailbox = Self.makeAsynchronousMailbox(in: &state) }
            }
            return (action, state.mailbox, awaitedCredentials)
        }
        // It may have waited for another request asking for the same credentials.
        if awaitedCredentials { CredentialPrompts.shared.stopWaiting(self) }
        guard action != .none, let mailbox else { return }
        // Out of the waiting list before the failure is posted: once posted, the request may
        // finish (and let go of its queue) before the next line, and a queue that meanwhile gave
        // it a slot would never get the slot back (the cancel storm in LoadTests lost 32 slots).
        read(\.queue)?.requestEndedWhileWaiting(self)
        if case .stopThenDeliverFailure(let transfer) = action {
            // The engine writes no more of it from now on (its callbacks check the flag), and
            // takes it out of the multi handle at its next turn.
            transfer.abandon()
            Engine.shared.cancel(transfer, with: error)
            return
        }
        discardPartialDownload()
        mailbox.post { self.deliverTerminal(.failed(error)) }
    }

    /// The engine reported the end of the transfer a cancel stopped: its file is closed, so the
    /// partial download can go (unless kept for resuming) and the failure can be delivered.
    /// Called on the engine thread; the file work runs on the callback queue, before the failure.
    func stoppedTransferEnded() {
        guard let mailbox = read(\.mailbox), case .failed(let error)? = read(\.machine.outcome) else { return }
        mailbox.post {
            self.discardPartialDownload()
            self.deliverTerminal(.failed(error))
        }
    }

    /// Decides how the request ends; the first decision wins (a cancel may have come first).
    func complete(_ outcome: RequestStateMachine.Outcome) {
        let mailbox = state.withLock { state -> CallbackMailbox? in
            guard state.machine.complete(outcome) else { return nil }
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
            guard !self.state.withLock({ $0.machine.isCancelled }) else { return }
            event()
        }
    }

    /// Runs the terminal hook, then marks the operation finished: `isFinished` comes after the
    /// last callback.
    private func deliverTerminal(_ outcome: RequestStateMachine.Outcome) {
        let failed: Bool
        switch outcome {
        case .finished:
            progressEnded(succeeded: true)
            requestFinished()
            // A subclass may have failed the request from `requestFinished()`.
            failed = read(\.error) != nil
        case .failed(let error):
            progressEnded(succeeded: false)
            failWithError(error)
            failed = true
        }
        let (queue, membership, asks) = state.withLock {
            ($0.queue, $0.machine.membership, $0.authentication.server.askingKey ?? $0.authentication.proxy.askingKey)
        }
        if asks != nil { releaseCredentialPrompts() }
        if let probeTarget = membership.probeTarget {
            queue?.probeEnded(self, for: probeTarget)
        } else if membership.isCounted {
            queue?.requestEnded(self, failed: failed, notifies: membership.notifiesQueue)
        }
        // The ended transfer comes out of the lock to be freed here, not under it.
        let (action, observers, _) = state.withLock { state in
            let action = state.machine.terminalCallbackDelivered()
            defer { state.terminalObservers = [] }
            return (action, state.terminalObservers, state.machine.takeEndedTransfer())
        }
        if action == .postFinished { postFinished() }
        for observer in observers { observer() }
    }

    private func postFinished() {
        let queue = state.withLock { state in
            defer { state.queue = nil }
            return state.queue
        }
        // The queue gives the slot to the next request first, so that its attempt begins
        // before corelibs' bookkeeping for this one's finish.
        queue?.requestWillFinishRunning(self)
        // Only isFinished: corelibs' Operation acts on an isExecuting change only when it
        // becomes true (at the start), and has no KVO observers to tell on Linux.
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isFinished")
        queue?.requestDidFinishRunning(self)
    }

    /// Tells the request's queue (unless its delegates were cleared) about an event, after the
    /// request's own delegate and blocks heard of it, or asks it something: nil without a queue
    /// to tell. Outside the request's lock, as the lock order wants (see `Locked`).
    @discardableResult
    func notifyQueue<Answer>(_ notify: (NetworkQueue) -> Answer?) -> Answer? {
        let (queue, notifiesQueue) = state.withLock { ($0.queue, $0.machine.membership.notifiesQueue) }
        guard let queue, notifiesQueue else { return nil }
        return notify(queue)
    }
}
