import Foundation

/// The states, events and actions of `RequestCore`.
extension RequestCore {
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
        /// Again because the service said so (`ResponseReview.retry`): S3's 500 or SlowDown, its
        /// wrong region, its clock skew.
        case serviceRetry
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

    /// What an executing request is doing. Each waiting case carries what its wait is for.
    enum Activity: Equatable {
        /// No transfer is with the engine: the request sets up an attempt (its body, the PAC
        /// file's answer, the download cache's), or works out what the last one's end leads to.
        case preparing
        /// The attempt's transfer is with the engine (after a cancel, until the engine says it
        /// ended).
        case attempting(Transfer)
        /// A redirect ended the attempt; the request waits for `redirect(to:)` from a delegate (or
        /// for the hop's callbacks to run first).
        case awaitingRedirectDecision(RedirectWait)
        /// A 401 (or a 407) ended the attempt and no credentials were at hand: the request waits
        /// for a delegate's `retryUsingSuppliedCredentials()` or `cancelAuthentication()`, the
        /// terminal dialog, or another request asking for the same server and realm.
        case awaitingCredentials(CredentialsWait)
        /// Its connection failed and its queue is finding out whether the reachability host can
        /// be reached.
        case checkingReachability
        /// Its connection failed while its queue's reachability host could not be reached.
        case heldForReachability
        /// The last attempt ended well; its download is being moved into place or its parsing
        /// block runs, off the engine thread.
        case finishing
        /// The response comes from the download cache (fresh, confirmed by a 304, or the
        /// fallback after a failed load): its body is being read or copied into place.
        case servingFromCache
        /// A subclass that speaks to a service (S3Request) reads the response, off the engine
        /// thread: is it the service's error, and is it worth another attempt?
        case reviewingResponse
        /// The review asked for another attempt after a pause (a backoff, or none).
        case waitingToRetry

        static func == (lhs: Self, rhs: Self) -> Bool {
            switch (lhs, rhs) {
            case (.preparing, .preparing), (.checkingReachability, .checkingReachability),
                (.heldForReachability, .heldForReachability), (.finishing, .finishing),
                (.servingFromCache, .servingFromCache), (.reviewingResponse, .reviewingResponse),
                (.waitingToRetry, .waitingToRetry):
                return true
            case (.attempting(let left), .attempting(let right)): return left === right
            case (.awaitingRedirectDecision(let left), .awaitingRedirectDecision(let right)):
                return left.status == right.status && left.next == right.next
            case (.awaitingCredentials(let left), .awaitingCredentials(let right)): return left.proxy == right.proxy
            default: return false
            }
        }
    }

    /// A redirect the request waits on: its status (whose rules the next hop follows), where the
    /// server sends it, and the object asked to decide, once asked. A class, like
    /// `CredentialsWait`, so that every case of `Activity` carries one reference: copying the
    /// activity is then a retain, where a struct with a URL and a weak reference made each copy
    /// a switch through outlined value witnesses (about 750 instructions per 1 KiB GET).
    final class RedirectWait {
        let status: Int
        let next: URL
        /// Set once the hop's callbacks ran and someone is asked: only then does `redirect(to:)`
        /// decide.
        let isAsking: Bool
        let decider: WeakDecider?

        init(status: Int, next: URL, isAsking: Bool = false, decider: WeakDecider? = nil) {
            self.status = status
            self.next = next
            self.isAsking = isAsking
            self.decider = decider
        }

        func asked(by decider: AnyObject) -> RedirectWait {
            RedirectWait(status: status, next: next, isAsking: isAsking, decider: WeakDecider(decider))
        }
    }

    /// Credentials the request waits for: the proxy's or the server's, and the object asked (a
    /// delegate, the queue's delegate; none for a block, the dialog or another request's asking).
    final class CredentialsWait {
        let proxy: Bool
        let decider: WeakDecider?

        init(proxy: Bool, decider: WeakDecider? = nil) {
            self.proxy = proxy
            self.decider = decider
        }
    }

    enum Outcome: Sendable {
        case finished
        /// Boxed: an error is seven words, and every action list would carry room for one
        /// (a request that fails pays one allocation; one that finishes, none).
        indirect case failed(HTTPRequestError)
    }

    /// How the request belongs to a queue. The core keeps it `private(set)`: only its events change it.
    struct QueueMembership {
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

/// An object asked to decide (a redirect, credentials), held weakly as ASI held delegates: the
/// request does not keep it alive, and notices when it is gone (`RequestEvent.deciderGone`).
struct WeakDecider {
    weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
    var isGone: Bool { object == nil }
}

/// What the engine's report of an attempt's end says, gathered by `HTTPRequest` under its lock
/// for `RequestCore` to decide on.
struct AttemptReport {
    /// How the transfer ended: `.finished` when a response arrived whole, else its failure,
    /// boxed (an error inline made every event, which carries this, seven words bigger).
    private(set) var ending = RequestCore.Outcome.finished
    /// Why the transfer failed; nil when a response arrived whole.
    var failure: HTTPRequestError? {
        if case .failed(let error) = ending { return error }
        return nil
    }
    var status = 0
    /// The redirect's Location, as sent.
    var location: String?
    /// The transfer could not reach its proxy…
    var proxyUnreachable = false
    /// …and the PAC file names another way.
    var hasAnotherProxy = false
    /// `numberOfTimesToRetryOnTimeout`.
    var timeoutRetryLimit = 0
    /// The request's queue has a reachability host, which decides what a connection failure means.
    var queueWatchesReachability = false
    /// The attempt was a conditional GET for the cached copy.
    var isRevalidating = false
    /// The attempt presented credentials (the server's or the proxy's).
    var presentsCredentials = false
    /// The request's class reviews each response before it finishes (S3Request).
    var reviewsResponse = false

    init(
        failure: HTTPRequestError? = nil, status: Int = 0, location: String? = nil, proxyUnreachable: Bool = false,
        hasAnotherProxy: Bool = false, timeoutRetryLimit: Int = 0, queueWatchesReachability: Bool = false,
        isRevalidating: Bool = false, presentsCredentials: Bool = false, reviewsResponse: Bool = false
    ) {
        if let failure { ending = .failed(failure) }
        self.status = status
        self.location = location
        self.proxyUnreachable = proxyUnreachable
        self.hasAnotherProxy = hasAnotherProxy
        self.timeoutRetryLimit = timeoutRetryLimit
        self.queueWatchesReachability = queueWatchesReachability
        self.isRevalidating = isRevalidating
        self.presentsCredentials = presentsCredentials
        self.reviewsResponse = reviewsResponse
    }
}

/// A redirect hop, once its callbacks have run: what the request's delegates and limit say of it.
struct RedirectHop {
    /// The hop as the core announced it (`RequestAction.decideRedirect`).
    struct Pending {
        var status: Int
        var next: URL
        /// The attempt that met it: a decision for an earlier one is stale.
        var attempt: Int
    }
    var pending: Pending
    /// A delegate, selector or the queue's delegate decides where to go.
    var asks: Bool
    /// The request's redirect rules (`maxRedirects`).
    var policy: RedirectPolicy
    /// The URL that answered with the redirect.
    var url: URL
}

/// An answer to the request's wait for credentials.
enum CredentialsDecision {
    /// `retryUsingSuppliedCredentials()` or the dialog's answer; `refusedBefore` when they are
    /// the ones the server already refused for this realm (they are not sent again).
    case supplied(refusedBefore: Bool)
    /// `cancelAuthentication()`.
    case declined
    /// The terminal dialog was left empty, or there is no terminal.
    case noneOnTerminal
    /// Another request finished asking for the same server and realm: look again.
    case anotherRequestAnswered
}

/// Why a wait for credentials failed the request.
enum CredentialsFailure: Equatable {
    case refusedBefore
    case declined
    case noneOnTerminal
    case deciderGone

    var reason: String {
        switch self {
        case .refusedBefore: "the credentials supplied were those it had refused: not sent again"
        case .declined: "the credentials were not supplied (cancelAuthentication)"
        case .noneOnTerminal: "none were given on the terminal"
        case .deciderGone: "the delegate asked went away without answering"
        }
    }
}

/// What the queue's reachability check found for a request whose connection failed.
enum ReachabilityFinding {
    /// The host can be reached: the failure stands.
    case reachable(HTTPRequestError)
    /// Unreachable, and the queue's delegate takes such requests: the request fails to it.
    case unreachableHandedOver(HTTPRequestError)
    /// Unreachable: the request is held until the host is back.
    case unreachableHeld
}

/// What happens to a request: its own calls, the engine's reports, its queue's, and the answers of
/// those it asked. `RequestCore.handle(_:)` takes each. The cases that carry an error or a
/// redirect's rules are boxed (`indirect`): every other event is at most a few words, which a
/// 1 KiB GET's dozen events move and destroy cheaply.
enum RequestEvent {
    /// The finished or failed notification is about to go out (`error`: it fails).
    static func terminalNotifying(error: HTTPRequestError?) -> RequestEvent {
        .terminalNotification(error.map { .failed($0) } ?? .finished)
    }

    /// `Operation.start()`. `mayBegin` is false for one whose Operation is cancelled: its
    /// cancellation arrives just after, and no attempt may begin in between.
    case start(mayBegin: Bool)
    /// Its NetworkQueue gave it a slot.
    case slotGranted
    /// A subclass built its body, before the first attempt.
    case bodyBuilt
    /// The attempt's transfer was made.
    case transferMade(Transfer)
    /// The response's head arrived: whether the request follows it as a redirect.
    case headReceived(Transfer, followsRedirect: Bool)
    /// The engine reported a transfer's end.
    case transferEnded(Transfer, AttemptReport)
    /// The request follows a redirect to `next` (checked and resolved): it waits for the hop's
    /// callbacks, then decides.
    case redirectReceived(status: Int, next: URL)
    /// The hop's callbacks ran: count it, then follow it, ask, or fail over the limit.
    indirect case redirectHopReached(RedirectHop)
    /// The delegate asked where to redirect is this object.
    case redirectDeciderAsked(AnyObject)
    /// `redirect(to:)`.
    case redirectDecided(URL)
    /// The next hop's configuration is in place: its attempt begins.
    case redirectFollowed
    /// Credentials for the challenge were found (a store, the request's own, a stale nonce).
    case credentialsFound(proxy: Bool)
    /// None were found: the request waits for someone's answer (`decider`, if an object).
    case credentialsAwaited(proxy: Bool, decider: AnyObject?)
    /// The object asked for credentials is this one.
    case credentialsDeciderAsked(AnyObject)
    case credentialsDecided(CredentialsDecision)
    /// The decider the request waits on may have gone (`DeciderWatch` looks).
    case deciderGone
    indirect case reachabilityCheckFound(ReachabilityFinding)
    /// The queue's reachability host is back.
    case hostReachableAgain
    /// The response comes from the download cache.
    case servingFromCache
    /// The last attempt ended well and work remains (a download to move, a parsing block).
    case finishing
    /// What the request's class made of the response it reviewed.
    indirect case responseReviewed(ResponseReview)
    /// The pause before the retry a review asked for is over.
    case retryDelayElapsed
    /// How it belongs to its queue changed.
    case membership(Membership)
    /// `cancel()`, `clearDelegatesAndCancel()`, or a queue failing the rest.
    indirect case cancel(HTTPRequestError)
    /// The request decided how it ends.
    case completed(RequestCore.Outcome)
    /// The finished (`.finished`) or failed notification is about to go out.
    case terminalNotification(RequestCore.Outcome)
    /// The terminal callback has run.
    case terminalDelivered

    enum Membership {
        /// Handed to an operation queue (`.proceed` unless it already was, or has started).
        case enqueued
        /// Joined a NetworkQueue: it waits for a slot (`.proceed` unless it had started, or is
        /// a probe).
        case joinedQueue
        /// It is the HEAD probe its queue sends to learn `target`'s size.
        case becameProbe(HTTPRequest)
        /// `clearDelegatesAndCancel()`: the queue hears nothing more of it but its end.
        case delegatesCleared
        /// The queue passed it over: a dependency has not finished.
        case passedOverForDependencies
    }
}

/// What the request must do after an event, outside its lock (`HTTPRequest+Actions.swift`).
/// The cases that carry an error, a URL or a string are boxed (`indirect`): they are a
/// failure's or a redirect's, and keeping every other case to one word keeps `RequestActions`
/// small enough to move without a `memcpy`. Boxing the error cases, with three slots instead of
/// four read in place, took a 1 KiB GET from 140,339 to 129,846 instructions (callgrind,
/// `courier-bench get`, ×1000 − ×500).
enum RequestAction {
    /// The step the event announced goes ahead: the caller's own code performs it.
    case proceed
    /// corelibs' Operation is told the request executes.
    case markExecuting
    /// Set up the next attempt: the body, the PAC file, the cache, then the transfer.
    case beginAttempt
    case addToEngine(Transfer)
    /// A HEAD probe's slot: start it.
    case startProbe
    /// Its NetworkQueue passed it over for its dependencies: the queue looks again.
    case lookForWaitingRequests
    /// Stop a transfer a cancel ended; the failure goes out when the engine reports its end.
    indirect case stopTransfer(Transfer, HTTPRequestError)
    /// The cancelled request's partial download goes (unless kept), then its failure.
    indirect case discardPartialDownloadThenDeliverFailure(HTTPRequestError)
    /// It is out of its queue's list of those waiting for a slot.
    case leaveQueueWaitingList
    /// It no longer waits for another request asking the same credentials.
    case stopWaitingForCredentialPrompt
    /// The PAC file's next choice becomes the attempt's.
    case takeNextProxy
    /// A redirect: store the hop in the cache (off the engine thread), then follow.
    indirect case storeRedirectHopThenFollow(location: String?, status: Int)
    /// Post the hop's decision behind its callbacks (`RequestEvent.redirectHopReached`).
    indirect case decideRedirect(RedirectHop.Pending)
    /// Ask the redirect delegate, selector or queue's delegate.
    indirect case askWhereToRedirect(URL)
    /// Apply the hop to the configuration and begin its attempt.
    indirect case followRedirect(to: URL, status: Int)
    /// A 401 or 407: remember what worked (the proxy's credentials, before a server's 401),
    /// then look for credentials off the engine thread.
    case rememberCredentialsThenAnswerChallenge(proxy: Bool)
    /// Look for credentials again (another request finished asking).
    case answerChallenge(proxy: Bool)
    case failForCredentials(proxy: Bool, reason: CredentialsFailure)
    /// A 304 confirmed the cached copy.
    case serveNotModified
    /// The queue checks its reachability host for this connection failure.
    indirect case checkReachability(HTTPRequestError)
    /// Credentials worked: remember them (the file off the engine thread), then finish.
    case rememberCredentialsThenFinish
    /// The request's class reviews the response, off the engine thread.
    case reviewResponse
    /// Begin the next attempt after this many seconds (`.retryDelayElapsed`).
    case retryAfter(TimeInterval)
    /// The last attempt ended: move the download, store, parse, fall back to the cache.
    case finishAttempt(RequestCore.Outcome)
    /// Post the terminal callback.
    case deliverTerminal(RequestCore.Outcome)
    /// Mark the operation finished (`isFinished`).
    case postFinished
}

/// At most three actions, kept inline: an event's actions cost no allocation (an `Array` per
/// event would be one malloc on every request's hot path). Three is the most any event leads to
/// (a cancel: stop waiting for a credentials prompt, leave the queue's waiting list, stop the
/// transfer).
struct RequestActions: Sequence {
    fileprivate var first: RequestAction?
    fileprivate var second: RequestAction?
    fileprivate var third: RequestAction?
    /// How many are set, and whether the first is `.proceed`: kept beside the actions so that
    /// asking neither copies an action out of its optional (each such copy went through an
    /// outlined value witness, eight per request; callgrind).
    private var count: UInt8 = 0
    /// Whether the step the event announced goes ahead (the first action is `.proceed`).
    private(set) var proceeds = false

    static var none: RequestActions { RequestActions() }

    init() {}
    init(_ action: RequestAction) { append(action) }
    init(_ first: RequestAction, _ second: RequestAction) {
        append(first)
        append(second)
    }

    mutating func append(_ action: RequestAction) {
        switch count {
        case 0:
            if case .proceed = action { proceeds = true }
            first = action
        case 1:
            second = action
        default:
            precondition(count == 2, "an event leads to at most three actions")
            third = action
        }
        count += 1
    }

    var isEmpty: Bool { count == 0 }

    /// Each action in order, read in place: no iterator copies the list (the driver's way).
    @inline(__always)
    func forEach(_ body: (borrowing RequestAction) -> Void) {
        guard let first else { return }
        body(first)
        guard let second else { return }
        body(second)
        if let third { body(third) }
    }

    func makeIterator() -> Iterator { Iterator(actions: self) }

    /// Takes the actions in order (tests and logging; the driver uses `forEach`).
    struct Iterator: IteratorProtocol {
        fileprivate var actions: RequestActions
        fileprivate var index = 0

        mutating func next() -> RequestAction? {
            defer { index += 1 }
            switch index {
            case 0: return actions.first
            case 1: return actions.second
            case 2: return actions.third
            default: return nil
            }
        }
    }
}
