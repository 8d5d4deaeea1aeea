/// A request's lifecycle and the run state that says where it is, as one value. Events go in
/// (`handle(_:)`), actions come out; `HTTPRequest` takes its lock once per event, leaves it, and
/// performs the actions (`HTTPRequest+Actions.swift`), so no callback, libcurl call, file or KVO
/// post happens while the state is half-changed, and none under the lock.
///
/// ```
/// idle ──joinQueue──► waitingInQueue ──slotGranted──┐
///   └──────────────────start─────────────────────────┴─► executing(activity) ──┐
///                                                                               │ completed / cancel
/// finished ◄──terminalDelivered (and started)── completing ◄────────────────────┘
/// ```
/// While executing, the request is preparing an attempt (its body, the PAC file's answer, the
/// cache's) or working out where the last one's end leads, attempting (a transfer is with the
/// engine), awaiting a redirect decision or credentials (from a decider it holds weakly),
/// checking or held for its queue's reachability host, serving from the cache, or finishing (a
/// download moved into place, the parsing block). Cancel reaches `completing` from every phase
/// before it; a transfer with the engine is kept until the engine says it ended, and only then
/// is the failure delivered, so once a request is finished none of its bytes reaches a file.
///
/// The decisions are the core's: what an attempt's end leads to (`AttemptReport` in, a retry,
/// the next proxy, a redirect, a challenge, a 304, a reachability check or the end out), whether a
/// redirect hop goes over the limit or asks, what a decider's answer or absence does. What each
/// action does is `HTTPRequest`'s: the policies (`RedirectPolicy`, `ChallengeLadder`,
/// `CacheDecision`, `ProgressAccounting`) and the effects (files, the engine, callbacks).
///
/// A request is finished (`isFinished`) only after its terminal callback has been delivered and
/// the operation was started (by a queue or by the user), whichever comes last. A request in a
/// NetworkQueue is started by the OperationQueue beneath as soon as it joins, but begins its first
/// attempt only when the NetworkQueue gives it a slot (`.slotGranted`).
struct RequestCore {
    private(set) var phase: Phase = .idle
    /// Meaningful while `phase` is `.executing` (and, for a cancelled transfer's wait, `.completing`).
    private(set) var activity: Activity = .preparing
    private(set) var attempt = Attempt()
    /// Attempts made again after a timeout (`retryCount`).
    private(set) var timeoutRetries = 0
    /// Attempts made again with credentials after a 401 (`authenticationRetryCount`), and after a
    /// 407 (`proxyAuthenticationRetryCount`).
    private(set) var authenticationRetries = 0
    private(set) var proxyAuthenticationRetries = 0
    /// Redirects followed (`redirectCount`), counted when a hop's callbacks have run.
    private(set) var redirectCount = 0
    /// Set before the first attempt, once a subclass has built its body.
    private(set) var hasBuiltBody = false
    /// How the request ends, once decided: the first decision wins. A subclass that fails from
    /// `requestFinished()` turns `.finished` into `.failed` (`error` then says why).
    private(set) var outcome: Outcome?
    /// Set once the finished or failed notification has gone out, so a subclass that calls
    /// `failWithError` from `requestFinished()` cannot notify twice.
    private var terminalNotified = false
    private var wasStarted = false
    private var terminalDelivered = false
    /// How the request belongs to its queue, if it has one.
    private(set) var membership = QueueMembership()
    /// The last attempt's transfer once it ended, let go when the terminal callback has run, on
    /// the callback queue: its memory was mostly allocated there, and freeing it on the engine
    /// thread would take the lock of that thread's malloc arena (see BodyBufferPool).
    private(set) var endedTransfer: Transfer?

    // MARK: - Events in, actions out

    mutating func handle(_ event: RequestEvent) -> RequestActions {
        switch event {
        case .start(let mayBegin): return start(mayBegin: mayBegin)
        case .slotGranted: return slotGranted()
        case .bodyBuilt:
            hasBuiltBody = true
            return .none
        case .transferMade(let transfer):
            guard isPreparing else { return .none }
            activity = .attempting(transfer)
            return RequestActions(.addToEngine(transfer))
        case .headReceived(let transfer, let followsRedirect):
            guard isCurrent(transfer) else { return .none }
            attempt.followsRedirect = followsRedirect
            return .none
        case .transferEnded(let transfer, let report): return transferEnded(transfer, report)
        case .redirectReceived(let status, let next):
            guard isPreparing else { return .none }
            activity = .awaitingRedirectDecision(RedirectWait(status: status, next: next))
            return RequestActions(.decideRedirect(RedirectHop.Pending(status: status, next: next, attempt: attempt.number)))
        case .redirectHopReached(let hop): return redirectHopReached(hop)
        case .redirectDeciderAsked(let decider):
            guard phase == .executing, case .awaitingRedirectDecision(let wait) = activity, wait.isAsking else {
                return .none
            }
            activity = .awaitingRedirectDecision(wait.asked(by: decider))
            return .none
        case .redirectDecided(let url):
            // Only once someone was asked: a `redirect(to:)` while the hop's callbacks are on
            // their way would skip the count and the limit.
            guard phase == .executing, case .awaitingRedirectDecision(let wait) = activity, wait.isAsking else {
                return .none
            }
            activity = .preparing
            return RequestActions(.followRedirect(to: url, status: wait.status))
        case .redirectFollowed:
            guard isPreparing else { return .none }
            nextAttempt(.redirect)
            return RequestActions(.beginAttempt)
        case .credentialsFound(let proxy): return retryWithCredentials(proxy: proxy)
        case .credentialsAwaited(let proxy, let decider):
            guard isPreparing else { return .none }
            activity = .awaitingCredentials(CredentialsWait(proxy: proxy, decider: decider.map(WeakDecider.init)))
            return RequestActions(.proceed)
        case .credentialsDeciderAsked(let decider):
            guard phase == .executing, case .awaitingCredentials(let wait) = activity else { return .none }
            activity = .awaitingCredentials(CredentialsWait(proxy: wait.proxy, decider: WeakDecider(decider)))
            return .none
        case .credentialsDecided(let decision): return credentialsDecided(decision)
        case .deciderGone: return deciderGone()
        case .reachabilityCheckFound(let reachable): return reachabilityCheckFound(reachable)
        case .hostReachableAgain:
            guard phase == .executing, case .heldForReachability = activity else { return .none }
            activity = .preparing
            nextAttempt(.afterHostReturned)
            return RequestActions(.beginAttempt)
        case .servingFromCache:
            guard isPreparing || (phase == .executing && activity == .finishing) else { return .none }
            activity = .servingFromCache
            return RequestActions(.proceed)
        case .finishing:
            guard isPreparing else { return .none }
            activity = .finishing
            return RequestActions(.proceed)
        case .responseReviewed(let review): return responseReviewed(review)
        case .retryDelayElapsed:
            guard phase == .executing, case .waitingToRetry = activity else { return .none }
            activity = .preparing
            nextAttempt(.serviceRetry)
            return RequestActions(.beginAttempt)
        case .membership(let change): return handleMembership(change)
        case .cancel(let error): return cancel(error)
        case .completed(let result):
            guard outcome == nil, phase == .executing else { return .none }
            outcome = result
            phase = .completing
            // A transfer still with the engine is no longer followed: its end is stale.
            if case .attempting = activity { activity = .preparing }
            return RequestActions(.deliverTerminal(result))
        case .terminalNotification(let notified):
            guard !terminalNotified else { return .none }
            terminalNotified = true
            if case .failed = notified { outcome = notified }
            return RequestActions(.proceed)
        case .terminalDelivered:
            terminalDelivered = true
            return wasStarted ? finish() : .none
        }
    }

    // MARK: - Starting

    private mutating func start(mayBegin: Bool) -> RequestActions {
        guard !wasStarted else { return .none }
        wasStarted = true
        // The OperationQueue starts a request with dependencies once they have finished: if its
        // NetworkQueue passed it over for them, the queue looks again.
        var actions = RequestActions.none
        if phase == .waitingInQueue, membership.waitsForDependencies { actions.append(.lookForWaitingRequests) }
        membership.waitsForDependencies = false
        switch phase {
        case .idle where !mayBegin, .waitingInQueue:
            return actions
        case .idle:
            phase = .executing
            activity = .preparing
            actions.append(.markExecuting)
            actions.append(.beginAttempt)
            return actions
        case .completing where terminalDelivered:
            return finish()
        default:
            return actions
        }
    }

    private mutating func slotGranted() -> RequestActions {
        guard membership.probeTarget == nil else { return RequestActions(.startProbe) }
        guard phase == .idle || phase == .waitingInQueue else { return .none }
        phase = .executing
        activity = .preparing
        return RequestActions(.beginAttempt)
    }

    // MARK: - An attempt's end

    private mutating func transferEnded(_ transfer: Transfer, _ report: AttemptReport) -> RequestActions {
        guard case .attempting(let current) = activity, current === transfer else { return .none }
        endedTransfer = transfer
        activity = .preparing
        guard phase == .executing else {
            // The transfer a cancel stopped: its file is closed, the failure may go out now.
            guard case .failed(let error)? = outcome else { return .none }
            return RequestActions(.discardPartialDownloadThenDeliverFailure(error))
        }
        if case .failed(let failure) = report.ending {
            // Another way in the PAC file beats retrying a proxy that is not there.
            if report.proxyUnreachable, report.hasAnotherProxy {
                nextAttempt(.nextProxy)
                return RequestActions(.takeNextProxy, .beginAttempt)
            }
            if failure.type == .requestTimedOut, timeoutRetries < report.timeoutRetryLimit {
                timeoutRetries += 1
                nextAttempt(.timeoutRetry)
                return RequestActions(.beginAttempt)
            }
            if failure.type == .connectionFailure, report.queueWatchesReachability {
                activity = .checkingReachability
                return RequestActions(.checkReachability(failure))
            }
            return RequestActions(.finishAttempt(report.ending))
        }
        if attempt.followsRedirect {
            return RequestActions(.storeRedirectHopThenFollow(location: report.location, status: report.status))
        }
        if CacheDecision.servesStoredCopy(status: report.status, isRevalidating: report.isRevalidating) {
            return RequestActions(.serveNotModified)
        }
        if report.status == 401 || report.status == 407 {
            return RequestActions(.rememberCredentialsThenAnswerChallenge(proxy: report.status == 407))
        }
        if report.reviewsResponse {
            activity = .reviewingResponse
            return RequestActions(.reviewResponse)
        }
        if report.presentsCredentials { return RequestActions(.rememberCredentialsThenFinish) }
        return RequestActions(.finishAttempt(.finished))
    }

    /// The class's verdict on the response: it stands, it is a failure, or it is worth another
    /// attempt (the class counts its own retries: the core only follows).
    private mutating func responseReviewed(_ review: ResponseReview) -> RequestActions {
        guard phase == .executing, case .reviewingResponse = activity else { return .none }
        switch review {
        case .accept:
            activity = .preparing
            return RequestActions(.finishAttempt(.finished))
        case .fail(let error):
            activity = .preparing
            return RequestActions(.finishAttempt(.failed(error)))
        case .retry(let delay):
            activity = .waitingToRetry
            return RequestActions(.retryAfter(delay))
        }
    }

    // MARK: - Redirects

    private mutating func redirectHopReached(_ hop: RedirectHop) -> RequestActions {
        guard phase == .executing, case .awaitingRedirectDecision(let wait) = activity,
            wait.status == hop.pending.status, attempt.number == hop.pending.attempt
        else { return .none }
        redirectCount += 1
        if hop.policy.exceedsLimit(count: redirectCount) {
            activity = .preparing
            let error = HTTPRequestError(type: .tooMuchRedirection, message: hop.policy.limitMessage, url: hop.url)
            return RequestActions(.finishAttempt(.failed(error)))
        }
        // Asking, the request goes on waiting; otherwise it takes its own decision.
        if hop.asks {
            activity = .awaitingRedirectDecision(RedirectWait(status: wait.status, next: wait.next, isAsking: true))
            return RequestActions(.askWhereToRedirect(hop.pending.next))
        }
        activity = .preparing
        return RequestActions(.followRedirect(to: hop.pending.next, status: hop.pending.status))
    }

    // MARK: - Credentials

    private mutating func retryWithCredentials(proxy: Bool) -> RequestActions {
        guard isPreparing else { return .none }
        if proxy { proxyAuthenticationRetries += 1 } else { authenticationRetries += 1 }
        nextAttempt(.authenticationRetry(proxy: proxy))
        return RequestActions(.beginAttempt)
    }

    private mutating func credentialsDecided(_ decision: CredentialsDecision) -> RequestActions {
        guard phase == .executing, case .awaitingCredentials(let wait) = activity else { return .none }
        activity = .preparing
        let proxy = wait.proxy
        switch decision {
        case .supplied(let refusedBefore):
            if refusedBefore { return RequestActions(.failForCredentials(proxy: proxy, reason: .refusedBefore)) }
            return retryWithCredentials(proxy: proxy)
        case .declined:
            return RequestActions(.failForCredentials(proxy: proxy, reason: .declined))
        case .noneOnTerminal:
            return RequestActions(.failForCredentials(proxy: proxy, reason: .noneOnTerminal))
        case .anotherRequestAnswered:
            return RequestActions(.answerChallenge(proxy: proxy))
        }
    }

    /// The watch found the decider gone: a redirect goes on to where the server said, a
    /// credentials wait fails.
    private mutating func deciderGone() -> RequestActions {
        guard phase == .executing else { return .none }
        switch activity {
        case .awaitingRedirectDecision(let wait) where wait.decider?.isGone == true:
            activity = .preparing
            return RequestActions(.followRedirect(to: wait.next, status: wait.status))
        case .awaitingCredentials(let wait) where wait.decider?.isGone == true:
            activity = .preparing
            return RequestActions(.failForCredentials(proxy: wait.proxy, reason: .deciderGone))
        default:
            return .none
        }
    }

    // MARK: - Reachability

    private mutating func reachabilityCheckFound(_ finding: ReachabilityFinding) -> RequestActions {
        guard phase == .executing, case .checkingReachability = activity else { return .none }
        switch finding {
        case .reachable(let error):
            activity = .preparing
            return RequestActions(.finishAttempt(.failed(error)))
        case .unreachableHandedOver(let error):
            membership.endedUnreachable = true
            activity = .preparing
            return RequestActions(.finishAttempt(.failed(error)))
        case .unreachableHeld:
            activity = .heldForReachability
            return RequestActions(.proceed)
        }
    }

    // MARK: - Ending

    /// Ends the request with `error`. A transfer with the engine is kept until the engine has
    /// stopped it (`.transferEnded` then delivers the failure): so once the request is finished
    /// none of its bytes reaches a file or a buffer.
    private mutating func cancel(_ error: HTTPRequestError) -> RequestActions {
        guard outcome == nil else { return .none }
        let awaitedCredentials = phase == .executing && awaitedCredentials != nil
        outcome = .failed(error)
        phase = .completing
        var actions = awaitedCredentials ? RequestActions(.stopWaitingForCredentialPrompt) : .none
        actions.append(.leaveQueueWaitingList)
        if case .attempting(let transfer) = activity {
            actions.append(.stopTransfer(transfer, error))
        } else {
            actions.append(.discardPartialDownloadThenDeliverFailure(error))
        }
        return actions
    }

    private mutating func finish() -> RequestActions {
        guard phase != .finished else { return .none }
        phase = .finished
        return RequestActions(.postFinished)
    }

    private mutating func nextAttempt(_ kind: AttemptKind) {
        attempt = Attempt(number: attempt.number + 1, kind: kind)
    }

    // MARK: - Reading

    /// Whether `transfer` is the current attempt's and the request still runs: events from any
    /// other, or from one a cancel is stopping, are stale.
    func isCurrent(_ transfer: Transfer) -> Bool {
        guard phase == .executing, case .attempting(let current) = activity else { return false }
        return current === transfer
    }

    /// The transfer with the engine, if any (a cancelled one included, until it ended).
    var transfer: Transfer? {
        if case .attempting(let transfer) = activity { return transfer }
        return nil
    }

    /// Executing with no transfer: setting up an attempt, or working out what the last one's end
    /// leads to.
    var isPreparing: Bool {
        guard phase == .executing, case .preparing = activity else { return false }
        return true
    }

    /// The ended transfer, to be freed by the caller outside the lock, once the terminal callback
    /// has run.
    mutating func takeEndedTransfer() -> Transfer? {
        defer { endedTransfer = nil }
        return endedTransfer
    }

    var error: HTTPRequestError? {
        if case .failed(let error)? = outcome { return error }
        return nil
    }
    var hasDeliveredTerminal: Bool { terminalDelivered }
    /// The status of the redirect whose decision the request awaits, if it awaits one.
    var awaitedRedirectStatus: Int? {
        guard phase == .executing, case .awaitingRedirectDecision(let wait) = activity else { return nil }
        return wait.status
    }
    /// Whether the request waits for credentials, and for the proxy's (true) or the server's.
    var awaitedCredentials: Bool? {
        guard phase == .executing, case .awaitingCredentials(let wait) = activity else { return nil }
        return wait.proxy
    }
    /// The object asked for credentials, while it is there and the request waits for it.
    var credentialsDecider: AnyObject? {
        guard phase == .executing, case .awaitingCredentials(let wait) = activity else { return nil }
        return wait.decider?.object
    }
    /// Whether the request waits for a decider that may go away (the watch looks at these).
    var waitsForDecider: Bool {
        guard phase == .executing else { return false }
        switch activity {
        case .awaitingRedirectDecision(let wait): return wait.decider != nil
        case .awaitingCredentials(let wait): return wait.decider != nil
        default: return false
        }
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
    var isCancelled: Bool { error?.type == .requestCancelled }
    /// True while the request is executing, preparing, with nothing under way: a moment that
    /// must not last (the debug watchdog in `HTTPRequest+TransferSink.swift` checks it).
    var isStuck: Bool { isPreparing }
}

// MARK: - Queue membership

/// How the request belongs to its queue: bookkeeping its queue's events change, none of which
/// starts or ends anything by itself.
extension RequestCore {
    mutating func handleMembership(_ event: RequestEvent.Membership) -> RequestActions {
        switch event {
        case .enqueued:
            // An operation may be enqueued only once. A request cancelled before is not counted:
            // the queue only waits for it to finish.
            guard !membership.isEnqueued, !wasStarted else { return .none }
            membership.isEnqueued = true
            membership.isCounted = outcome == nil
            return RequestActions(.proceed)
        case .joinedQueue:
            // A probe is started by its queue when it has a slot; one already started runs on.
            guard phase == .idle, membership.probeTarget == nil else { return .none }
            phase = .waitingInQueue
            return RequestActions(.proceed)
        case .becameProbe(let target):
            membership.probeTarget = target
            membership.notifiesQueue = false
        case .delegatesCleared:
            membership.notifiesQueue = false
        case .passedOverForDependencies:
            membership.waitsForDependencies = true
        }
        return .none
    }
}
