/// A request's lifecycle as a value: every change goes through one of its mutating methods,
/// which returns what the request must do next. The request runs the action after leaving its
/// lock, so no callback, libcurl call or KVO post happens while the state is half-changed.
///
/// ```
/// idle ──start / begin──► executing ──attempt ended / cancel──► completing ──delivered──► finished
///   └──────────────────cancel (before start)──────────────────► completing
/// ```
/// A request is finished (`isFinished`) only after its terminal callback has been delivered and
/// the operation was started (by a queue or by the user), whichever comes last. A request in a
/// NetworkQueue is started by the OperationQueue beneath as soon as it joins, but begins its first
/// attempt only when the NetworkQueue gives it a slot (`begin()`).
struct RequestStateMachine: Sendable {
    enum Phase: Sendable, Equatable {
        case idle
        case executing
        case completing
        case finished
    }

    enum Outcome: Sendable {
        case finished
        case failed(HTTPRequestError)
    }

    private(set) var phase: Phase = .idle
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

    /// `Operation.start()` was called. `mayBegin` is false for a request waiting for a slot in
    /// its NetworkQueue (it begins with `begin()`), and for one whose Operation is cancelled: its
    /// cancellation reaches this machine just after, and no attempt may begin in between.
    mutating func start(mayBegin: Bool = true) -> StartAction {
        guard !wasStarted else { return .none }
        wasStarted = true
        switch phase {
        case .idle where !mayBegin:
            return .none
        case .idle:
            phase = .executing
            return .run
        case .completing where terminalDelivered:
            return finish()
        default:
            return .none
        }
    }

    /// The request's NetworkQueue gave it a slot: true when the first attempt should begin now
    /// (false if it already began, or the request ended while it waited).
    mutating func begin() -> Bool {
        guard phase == .idle else { return false }
        phase = .executing
        return true
    }

    enum CancelAction: Equatable {
        /// Nothing: the request has already decided how it ends.
        case none
        /// Deliver the cancellation failure; `stopTransfer` says an attempt is in flight.
        case deliverFailure(stopTransfer: Bool)
    }

    mutating func cancel(_ error: HTTPRequestError) -> CancelAction {
        guard outcome == nil else { return .none }
        let wasExecuting = phase == .executing
        outcome = .failed(error)
        phase = .completing
        return .deliverFailure(stopTransfer: wasExecuting)
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
