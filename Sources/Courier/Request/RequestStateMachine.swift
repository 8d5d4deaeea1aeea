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
/// A request is finished (`isFinished`) only after its terminal callback has been delivered and
/// the operation was started (by a queue or by the user), whichever comes last. A request in a
/// NetworkQueue is started by the OperationQueue beneath as soon as it joins, but begins its first
/// attempt only when the NetworkQueue gives it a slot (`begin()`).
struct RequestStateMachine: Sendable {
    enum Phase: Sendable, Equatable {
        case idle
        /// In a NetworkQueue, waiting for a slot (whether or not its OperationQueue started it).
        case waitingInQueue
        case executing
        case completing
        case finished
    }

    /// Why an attempt is made.
    enum AttemptKind: Sendable, Equatable {
        case first
        /// The next hop of a redirect.
        case redirect
        /// Again after a timeout (`numberOfTimesToRetryOnTimeout`).
        case timeoutRetry
        /// Again once the queue's reachability host is back.
        case afterHostReturned
    }

    /// The request's current (or last) attempt.
    struct Attempt: Sendable, Equatable {
        /// 1 for the first attempt, counting every redirect hop and retry.
        var number = 1
        var kind = AttemptKind.first
        /// Set when this attempt's response is a redirect the request will follow: its body is
        /// dropped, and the next hop starts when it ends.
        var followsRedirect = false
    }

    /// What an executing request is doing.
    enum Activity: Sendable, Equatable {
        /// An attempt is with the engine, or being set up, or its ending is being handled.
        case attempting
        /// A redirect ended the attempt; the request waits for `redirect(to:)`. `status` is the
        /// redirect's, whose rules the next hop follows.
        case awaitingRedirectDecision(status: Int)
        /// Its connection failed and its queue is finding out whether the reachability host
        /// can be reached.
        case checkingReachability
        /// Its connection failed while its queue's reachability host could not be reached.
        case heldForReachability
        /// The last attempt ended well; its download is being moved into place or its parsing
        /// block runs, off the engine thread.
        case finishing
    }

    enum Outcome: Sendable {
        case finished
        case failed(HTTPRequestError)
    }

    private(set) var phase: Phase = .idle
    /// Meaningful while `phase` is `.executing`.
    private(set) var activity: Activity = .attempting
    private(set) var attempt = Attempt()
    /// Attempts made again after a timeout (`retryCount`).
    private(set) var timeoutRetries = 0
    /// Set once the finished or failed notification has gone out, so a subclass that calls
    /// `failWithError` from `requestFinished()` cannot notify twice.
    private var terminalNotified = false
    private(set) var outcome: Outcome?
    private var wasStarted = false
    private var terminalDelivered = false

    // MARK: - Events

    enum StartAction: Equatable {
        /// Begin the first attempt.
        case run
        /// The request was cancelled before it started and its failure was delivered: post
        /// `isFinished` now.
        case postFinished
        /// Nothing to do now (already started, or the terminal callback is still on its way).
        case none
    }

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

    /// The request joined a NetworkQueue: it waits for a slot. False if it had started already.
    mutating func joinQueue() -> Bool {
        guard phase == .idle else { return false }
        phase = .waitingInQueue
        return true
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

    enum CancelAction: Equatable {
        /// Nothing: the request has already decided how it ends.
        case none
        /// Deliver the cancellation failure; `stopTransfer` says an attempt is in flight.
        case deliverFailure(stopTransfer: Bool)
    }

    /// True while the request is executing, attempting, but has no transfer: a moment that must
    /// not last (the debug watchdog in `transfer(_:didComplete:)` checks it).
    func isStuck(hasTransfer: Bool) -> Bool {
        phase == .executing && activity == .attempting && !hasTransfer
    }

    mutating func cancel(_ error: HTTPRequestError) -> CancelAction {
        guard outcome == nil else { return .none }
        let wasAttempting = phase == .executing && activity == .attempting
        outcome = .failed(error)
        phase = .completing
        return .deliverFailure(stopTransfer: wasAttempting)
    }

    /// The request decided how it ends (after its last attempt, or on bad input). Returns false
    /// when it had already ended (a cancel won the race), so the caller delivers nothing.
    mutating func complete(_ result: Outcome) -> Bool {
        guard outcome == nil, phase == .executing else { return false }
        outcome = result
        phase = .completing
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
    var isWaitingInQueue: Bool { phase == .waitingInQueue }
    /// Whether `start()` has been called (by a queue or the user).
    var hasStarted: Bool { wasStarted }
    var isExecuting: Bool { phase == .executing || (phase == .completing && wasStarted) }
    var isFinished: Bool { phase == .finished }
    var isComplete: Bool { outcome != nil }

    var isCancelled: Bool {
        if case .failed(let error) = outcome, error.type == .requestCancelled { return true }
        return false
    }
}
