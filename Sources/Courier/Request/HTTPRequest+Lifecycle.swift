import Foundation

extension HTTPRequest {
    /// Runs the request on the calling thread's behalf and returns when it has finished or
    /// failed. Every callback runs on this thread, in order, before it returns, the main thread
    /// included; `callbackQueue` is not used.
    public func startSynchronous() {
        let mailbox = CallbackMailbox()
        let isFresh = state.withLock { state -> Bool in
            guard state.core.mayRunSynchronously else { return false }
            state.mailbox = mailbox
            return true
        }
        guard isFresh else { return }
        start()
        mailbox.waitAndDrain { self.state.withLock { $0.core.isFinished } }
    }

    /// Adds the request to `HTTPRequest.sharedQueue` (4 at a time) and returns at once;
    /// callbacks arrive on `callbackQueue`. Does nothing for a request already queued or started.
    public func startAsynchronous() {
        // A request cancelled before it started still goes to the queue, which finishes it.
        let isFresh = state.withLock { $0.core.mayEnqueue }
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
            guard state.core.handle(.membership(.enqueued)).proceeds else { return nil }
            return Joining(
                isComplete: !state.core.membership.isCounted, postLength: Self.postLength(of: &state, measuring: false),
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
            _ = state.core.handle(.membership(.delegatesCleared))
        }
        cancel()
    }

    /// True once the request has finished or failed.
    public var complete: Bool { state.withLock { $0.core.isComplete } }

    // MARK: - Starting and ending

    func startOperation() {
        let isCancelled = isCancelled
        let actions = state.withLock { state in
            let actions = state.core.handle(.start(mayBegin: !isCancelled))
            if state.core.isPreparing { Self.prepareMailbox(in: &state) }
            return actions
        }
        perform(actions)
    }

    /// The request's NetworkQueue gave it a slot: the first attempt begins here and now, on the
    /// thread that freed the slot (the OperationQueue holding the request has started it
    /// already, or soon will; that only marks the operation started). A HEAD probe is no
    /// operation: its slot starts it.
    func runGrantedByQueue() {
        let actions = state.withLock { state in
            let actions = state.core.handle(.slotGranted)
            if state.core.isPreparing { Self.prepareMailbox(in: &state) }
            return actions
        }
        perform(actions)
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
        let actions = state.withLock { state in
            let actions = state.core.handle(.cancel(error))
            if !actions.isEmpty, state.mailbox == nil { state.mailbox = Self.makeAsynchronousMailbox(in: &state) }
            return actions
        }
        perform(actions)
    }

    /// Decides how the request ends; the first decision wins (a cancel may have come first).
    func complete(_ outcome: RequestCore.Outcome) {
        let (actions, mailbox) = state.withLock { ($0.core.handle(.completed(outcome)), $0.mailbox) }
        perform(actions, mailbox: mailbox)
    }

    /// Posts a non-terminal event; it is dropped if the request was cancelled before it ran, so
    /// nothing but the one failure arrives after `cancel()`.
    func postEvent(_ event: @escaping @Sendable () -> Void) {
        let mailbox = read(\.mailbox)
        mailbox?.post {
            guard !self.state.withLock({ $0.core.isCancelled }) else { return }
            event()
        }
    }

    /// Runs the terminal hook, then marks the operation finished: `isFinished` comes after the
    /// last callback.
    func deliverTerminal(_ outcome: RequestCore.Outcome) {
        switch outcome {
        case .finished:
            progressEnded(succeeded: true)
            requestFinished()
        case .failed(let error):
            progressEnded(succeeded: false)
            failWithError(error)
        }
        // A subclass may have failed the request from `requestFinished()`: the core's error says.
        let (failed, queue, membership, asks) = state.withLock {
            (
                $0.core.error != nil, $0.queue, $0.core.membership,
                $0.authentication.server.askingKey ?? $0.authentication.proxy.askingKey
            )
        }
        if asks != nil { releaseCredentialPrompts() }
        if let probeTarget = membership.probeTarget {
            queue?.probeEnded(self, for: probeTarget)
        } else if membership.isCounted {
            queue?.requestEnded(self, failed: failed, notifies: membership.notifiesQueue)
        }
        // The ended transfer comes out of the lock to be freed here, not under it; a finished
        // request lets go of its queue in the same section.
        let delivered = state.withLock { state in
            let actions = state.core.handle(.terminalDelivered)
            defer { state.terminalObservers = [] }
            return Delivered(
                actions: actions, observers: state.terminalObservers, endedTransfer: state.core.takeEndedTransfer(),
                queue: state.core.isFinished ? state.queue.take() : nil)
        }
        perform(delivered.actions, leaving: delivered.queue)
        for observer in delivered.observers { observer() }
    }

    /// What the terminal callback's last lock section hands out. A struct: a tuple of these went
    /// through the runtime's generic tuple destroy.
    private struct Delivered {
        var actions: RequestActions
        var observers: [@Sendable () -> Void]
        var endedTransfer: Transfer?
        var queue: NetworkQueue?
    }

    /// Marks the operation finished, once the request let go of `queue` (it held it until now).
    func postFinished(leaving queue: NetworkQueue?) {
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
        let (queue, notifiesQueue) = state.withLock { ($0.queue, $0.core.membership.notifiesQueue) }
        guard let queue, notifiesQueue else { return nil }
        return notify(queue)
    }
}
