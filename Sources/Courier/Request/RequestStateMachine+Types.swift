/// The states, events' answers and facts of `RequestStateMachine`.
extension RequestStateMachine {
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
        /// Again with credentials, after a 401 (or a 407 from the proxy).
        case authenticationRetry(proxy: Bool)
        /// Again through the PAC file's next choice: the last one's proxy could not be reached.
        case nextProxy
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
        /// A 401 (or a 407, `proxy`) ended the attempt and no credentials were at hand: the
        /// request waits for a delegate's `retryUsingSuppliedCredentials()` or
        /// `cancelAuthentication()`, the terminal dialog, or another request asking for the same
        /// server and realm.
        case awaitingCredentials(proxy: Bool)
        /// Its connection failed and its queue is finding out whether the reachability host
        /// can be reached.
        case checkingReachability
        /// Its connection failed while its queue's reachability host could not be reached.
        case heldForReachability
        /// The last attempt ended well; its download is being moved into place or its parsing
        /// block runs, off the engine thread.
        case finishing
        /// The response comes from the download cache (fresh, confirmed by a 304, or the
        /// fallback after a failed load): its body is being read or copied into place.
        case servingFromCache
    }

    enum Outcome: Sendable {
        case finished
        case failed(HTTPRequestError)
    }

    enum StartAction: Equatable {
        /// Begin the first attempt.
        case run
        /// The request was cancelled before it started and its failure was delivered: post
        /// `isFinished` now.
        case postFinished
        /// Nothing to do now (already started, or the terminal callback is still on its way).
        case none
    }

    enum CancelAction: Equatable {
        /// Nothing: the request has already decided how it ends.
        case none
        /// Deliver the cancellation failure now: no transfer is with the engine.
        case deliverFailure
        /// Stop the attempt's transfer; the failure is delivered once the engine reports it
        /// ended (`AttemptEnd.stoppedByCancel`).
        case stopThenDeliverFailure(Transfer)

        static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.none, .none), (.deliverFailure, .deliverFailure): return true
            case (.stopThenDeliverFailure(let left), .stopThenDeliverFailure(let right)): return left === right
            default: return false
            }
        }
    }

    /// Whose end the engine reported (`attemptEnded`).
    enum AttemptEnd: Equatable {
        /// The current attempt's: the request decides what comes next.
        case current
        /// The transfer a cancel stopped: the cancellation failure may be delivered now.
        case stoppedByCancel
        /// One the request no longer follows (an attempt replaced, or a late report).
        case stale
    }

    /// How the request belongs to a queue. The machine keeps it `private(set)`: only its events change it.
    struct QueueMembership: Sendable {
        /// Handed to an operation queue: an operation may be enqueued only once.
        var isEnqueued = false
        /// Counted by its queue (progress, `queueDidFinish`): false for a request that was
        /// cancelled before it was added, which the queue only finishes.
        var isCounted = true
        /// False after `clearDelegatesAndCancel()`, and for a probe: the queue still counts the
        /// request, but calls no per-request selector for it.
        var notifiesQueue = true
        /// The queue passed the request over because a dependency had not finished: when the
        /// OperationQueue starts it (its dependencies done), the queue looks again.
        var waitsForDependencies = false
        /// The request's host was unreachable and its queue's delegate takes such requests: the
        /// queue calls `requestDidBecomeUnreachableSelector` for it instead of failing the rest.
        var endedUnreachable = false
        /// For a HEAD probe an accurate-progress queue sends to learn a GET's size: that GET. A
        /// probe is no operation, calls nothing back and counts for nothing; its result goes to
        /// the queue.
        var probeTarget: HTTPRequest?
    }
}
