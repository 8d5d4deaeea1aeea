/// A request's lifecycle as a value: every change goes through one of its mutating methods,
/// which returns what the request must do next. The request runs the action after leaving its
/// lock, so no callback, libcurl call or KVO post happens while the state is half-changed.
///
/// ```
/// idle ──join queue──► waitingInQueue ──begin (a slot)──┐
///   └───────────────────────start───────────────────────┴─► executing(activity) ──┐
///                                                                                   │ ended / cancel
/// finished ◄──delivered (and started)── completing ◄────────────────────────────────┘
/// ```
/// Cancel reaches `completing` from every phase before it. While executing, the request is
/// attempting (a transfer is with the engine, or being set up), awaiting a redirect decision
/// (`redirect(to:)`), or held while its queue's reachability host is unreachable.
///
/// The machine also holds what says where the request is beyond its phase: the current attempt's
/// transfer (events from any other transfer are stale) and its queue membership (enqueued once,
/// counted or not, heard by its queue or not, passed over for dependencies, a probe).
///
/// A request is finished (`isFinished`) only after its terminal callback has been delivered and
/// the operation was started (by a queue or by the user), whichever comes last. A request in a
/// NetworkQueue is started by the OperationQueue beneath as soon as it joins, but begins its first
/// attempt only when the NetworkQueue gives it a slot (`begin()`).
struct RequestStateMachine: Sendable {
    private(set) var phase: Phase = .idle
    /// Meaningful while `phase` is `.executing`.
    private(set) var activity: Activity = .attempting
    private(set) var attempt = Attempt()
    /// Attempts made again after a timeout (`retryCount`).
    private(set) var timeoutRetries = 0
    /// Attempts made again with credentials after a 401 (`authenticationRetryCount`), and after a
    /// 407 (`proxyAuthenticationRetryCount`).
    private(set) var authenticationRetries = 0
    private(set) var proxyAuthenticationRetries = 0
    /// Set once the finished or failed notification has gone out, so a subclass that calls
    /// `failWithError` from `requestFinished()` cannot notify twice.
    private var terminalNotified = false
    private(set) var outcome: Outcome?
    private var wasStarted = false
    private var terminalDelivered = false
    /// How the request belongs to its queue, if it has one.
    private(set) var membership = QueueMembership()
    /// The current attempt's transfer, from when it is made until the engine reports its end.
    private(set) var transfer: Transfer?
    /// The last attempt's transfer once it ended, let go when the terminal callback has run, on
    /// the callback queue: its memory was mostly allocated there, and freeing it on the engine
    /// thread would take the lock of that thread's malloc arena (see BodyBufferPool).
    private(set) var endedTransfer: Transfer?

    // MARK: - Events

    /// `Operation.start()` was called. A request waiting in a queue begins with `begin()`
    /// instead. `mayBegin` is false for one whose Operation is cancelled: its cancellation
    /// reaches this machine just after, and no attempt may begin in between.
    mutating func start(mayBegin: Bool = true) -> StartAction {
        guard !wasStarted else { return .none }
        wasStarted = true
        switch phase {
        case .idle where !mayBegin, .waitingInQueue:
            return .none
        case .idle:
            phase = .executing
            activity = .attempting
            return .run
        case .completing where terminalDelivered:
            return finish()
        default:
            return .none
        }
    }

    /// The request is handed to an operation queue: nil if it already was or has started (an
    /// operation may be enqueued only once); otherwise whether the queue counts it (not when it
    /// was cancelled before, and only waits to be finished).
    mutating func enqueue() -> Bool? {
        guard !membership.isEnqueued, !wasStarted else { return nil }
        membership.isEnqueued = true
        membership.isCounted = outcome == nil
        return membership.isCounted
    }

    /// The request joined a NetworkQueue: it waits for a slot. False if it had started already,
    /// and for a probe, which its queue starts when it has a slot.
    mutating func joinQueue() -> Bool {
        guard phase == .idle, membership.probeTarget == nil else { return false }
        phase = .waitingInQueue
        return true
    }

    /// The request becomes the HEAD probe its queue sends to learn `target`'s size.
    mutating func becomeProbe(for target: HTTPRequest) {
        membership.probeTarget = target
        membership.notifiesQueue = false
    }

    /// `clearDelegatesAndCancel()`: the queue hears nothing more of this request but its end.
    mutating func stopNotifyingQueue() {
        membership.notifiesQueue = false
    }

    /// The queue passed the request over: a dependency has not finished.
    mutating func passOverForDependencies() {
        membership.waitsForDependencies = true
    }

    /// The OperationQueue started the request: true when its NetworkQueue passed it over for its
    /// dependencies and should look again now that they are done.
    mutating func takeDependencyWait() -> Bool {
        defer { membership.waitsForDependencies = false }
        return phase == .waitingInQueue && membership.waitsForDependencies
    }

    /// Its host was unreachable, and its queue's delegate takes over such requests.
    mutating func endUnreachable() {
        membership.endedUnreachable = true
    }

    /// The attempt's transfer was made: false (and it is not kept) when the request stopped
    /// attempting while the transfer was set up (a cancel).
    mutating func attemptBegan(with transfer: Transfer) -> Bool {
        guard phase == .executing, activity == .attempting else { return false }
        self.transfer = transfer
        return true
    }

    /// The engine reported `transfer`'s end: the current attempt's, the one a cancel stopped
    /// (whose failure waited for this), or a stale one the request no longer follows.
    mutating func attemptEnded(_ transfer: Transfer) -> AttemptEnd {
        guard self.transfer === transfer else { return .stale }
        self.transfer = nil
        endedTransfer = transfer
        return phase == .executing ? .current : .stoppedByCancel
    }

    /// Whether `transfer` is the current attempt's and the request still runs: events from any
    /// other, or from one a cancel is stopping, are stale.
    func isCurrent(_ transfer: Transfer) -> Bool {
        self.transfer === transfer && phase == .executing
    }

    /// The ended transfer, to be freed by the caller outside the lock, once the terminal
    /// callback has run.
    mutating func takeEndedTransfer() -> Transfer? {
        defer { endedTransfer = nil }
        return endedTransfer
    }

    /// The request's NetworkQueue gave it a slot: true when the first attempt should begin now
    /// (false if it already began, or the request ended while it waited).
    mutating func begin() -> Bool {
        guard phase == .idle || phase == .waitingInQueue else { return false }
        phase = .executing
        activity = .attempting
        return true
    }

    /// The response's head arrived: whether the request will follow it as a redirect.
    mutating func responseIsRedirect(followed: Bool) {
        attempt.followsRedirect = followed
    }

    /// The attempt timed out: true (and the next attempt is a retry) when `limit` retries are not
    /// used up and the request is still executing.
    mutating func retryAfterTimeout(limit: Int) -> Bool {
        guard phase == .executing, activity == .attempting, timeoutRetries < limit else { return false }
        timeoutRetries += 1
        nextAttempt(.timeoutRetry)
        return true
    }

    /// The request follows a redirect (decided by itself or by `redirect(to:)`).
    mutating func followRedirect() {
        guard phase == .executing, activity == .attempting else { return }
        nextAttempt(.redirect)
    }

    private mutating func nextAttempt(_ kind: AttemptKind) {
        attempt = Attempt(number: attempt.number + 1, kind: kind)
    }

    /// True the first time: the finished or failed notification may go out.
    mutating func claimTerminalNotification() -> Bool {
        defer { terminalNotified = true }
        return !terminalNotified
    }

    /// A 401 or 407 ended the attempt and credentials were found: the next attempt presents
    /// them. False when the request is no longer attempting (a cancel came first).
    mutating func retryWithCredentials(proxy: Bool) -> Bool {
        guard phase == .executing, activity == .attempting else { return false }
        if proxy { proxyAuthenticationRetries += 1 } else { authenticationRetries += 1 }
        nextAttempt(.authenticationRetry(proxy: proxy))
        return true
    }

    /// The attempt could not reach its proxy, and the PAC file names another way: the next
    /// attempt takes it. False when the request is no longer attempting (a cancel came first).
    mutating func tryNextProxy() -> Bool {
        guard phase == .executing, activity == .attempting else { return false }
        nextAttempt(.nextProxy)
        return true
    }

    /// A 401 or 407 ended the attempt and the request waits for credentials. False when it is no
    /// longer attempting (a cancel came first).
    mutating func awaitCredentials(proxy: Bool) -> Bool {
        guard phase == .executing, activity == .attempting else { return false }
        activity = .awaitingCredentials(proxy: proxy)
        return true
    }

    /// `retryUsingSuppliedCredentials()`, `cancelAuthentication()`, the dialog's answer, or the
    /// end of another request's asking: whether the credentials awaited were the proxy's; nil
    /// when none were awaited (then nothing happens). The request is attempting again: it
    /// retries (`retryWithCredentials`), asks again, or fails.
    mutating func takeCredentialsDecision() -> Bool? {
        guard let proxy = awaitedCredentials else { return nil }
        activity = .attempting
        return proxy
    }

    /// A redirect ended the attempt and someone was asked where to go: the request waits.
    /// False when it is no longer executing (a cancel came first).
    mutating func awaitRedirectDecision(status: Int) -> Bool {
        guard phase == .executing, activity == .attempting else { return false }
        activity = .awaitingRedirectDecision(status: status)
        return true
    }

    /// `redirect(to:)` was called: the status of the redirect awaited, and the request attempts
    /// again; nil when it was not waiting for one (then nothing happens).
    mutating func takeRedirectDecision() -> Int? {
        guard let status = awaitedRedirectStatus else { return nil }
        activity = .attempting
        return status
    }

    /// Its connection failed and its queue checks the reachability host: false if cancelled.
    mutating func checkReachability() -> Bool {
        guard phase == .executing, activity == .attempting else { return false }
        activity = .checkingReachability
        return true
    }

    /// The host cannot be reached: the request waits for it. False if cancelled meanwhile.
    mutating func holdForReachability() -> Bool {
        guard phase == .executing, activity == .attempting || activity == .checkingReachability else {
            return false
        }
        activity = .heldForReachability
        return true
    }

    /// The response will come from the download cache: true when the request is still
    /// attempting (false if cancelled).
    mutating func serveFromCache() -> Bool {
        guard phase == .executing, activity == .attempting || activity == .finishing else { return false }
        activity = .servingFromCache
        return true
    }

    /// The last attempt ended well and work remains before the request completes.
    mutating func beginFinishing() {
        guard phase == .executing, activity == .attempting else { return }
        activity = .finishing
    }

    /// The host is back: true when the held request attempts again now (not if cancelled).
    mutating func releaseFromReachabilityHold() -> Bool {
        guard phase == .executing, activity == .heldForReachability else { return false }
        activity = .attempting
        nextAttempt(.afterHostReturned)
        return true
    }

    /// True while the request is executing, attempting, but has no transfer: a moment that must
    /// not last (the debug watchdog in `transfer(_:didComplete:)` checks it).
    var isStuck: Bool {
        phase == .executing && activity == .attempting && transfer == nil
    }

    /// Ends the request with `error`. A transfer with the engine is kept until the engine has
    /// stopped it (`attemptEnded` says `.stoppedByCancel`): only then is the failure delivered,
    /// so once the request is finished none of its bytes reaches a file or a buffer.
    mutating func cancel(_ error: HTTPRequestError) -> CancelAction {
        guard outcome == nil else { return .none }
        outcome = .failed(error)
        phase = .completing
        guard let transfer else { return .deliverFailure }
        return .stopThenDeliverFailure(transfer)
    }

    /// The request decided how it ends (after its last attempt, or on bad input). Returns false
    /// when it had already ended (a cancel won the race), so the caller delivers nothing.
    mutating func complete(_ result: Outcome) -> Bool {
        guard outcome == nil, phase == .executing else { return false }
        outcome = result
        phase = .completing
        transfer = nil
        return true
    }

    /// The terminal callback (finished or failed) has run.
    mutating func terminalCallbackDelivered() -> StartAction {
        terminalDelivered = true
        return wasStarted ? finish() : .none
    }

    private mutating func finish() -> StartAction {
        guard phase != .finished else { return .none }
        phase = .finished
        return .postFinished
    }

    // MARK: - Reading

    var hasDeliveredTerminal: Bool { terminalDelivered }
    /// The status of the redirect whose decision the request awaits, if it awaits one.
    var awaitedRedirectStatus: Int? {
        guard phase == .executing, case .awaitingRedirectDecision(let status) = activity else { return nil }
        return status
    }
    /// Whether the request waits for credentials, and for the proxy's (true) or the server's.
    var awaitedCredentials: Bool? {
        guard phase == .executing, case .awaitingCredentials(let proxy) = activity else { return nil }
        return proxy
    }
    var isWaitingInQueue: Bool { phase == .waitingInQueue }
    /// Whether `start()` has been called (by a queue or the user).
    var hasStarted: Bool { wasStarted }
    /// Neither started nor handed to a queue: `startAsynchronous()` may enqueue it.
    var mayEnqueue: Bool { !membership.isEnqueued && !wasStarted }
    /// Not begun and in no queue: `startSynchronous()` may run it.
    var mayRunSynchronously: Bool { phase == .idle && !membership.isEnqueued }
    var isProbe: Bool { membership.probeTarget != nil }
    var isExecuting: Bool { phase == .executing || (phase == .completing && wasStarted) }
    var isFinished: Bool { phase == .finished }
    var isComplete: Bool { outcome != nil }

    var isCancelled: Bool {
        if case .failed(let error) = outcome, error.type == .requestCancelled { return true }
        return false
    }
}
