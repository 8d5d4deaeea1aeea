import Foundation

/// An `OperationQueue` for `HTTPRequest`s that starts nothing before `go()`, reports the
/// aggregate progress of its requests, calls its delegate's selectors, and by default cancels the
/// rest when one request fails: ASIHTTPRequest's ASINetworkQueue.
///
/// ```swift
/// let queue = NetworkQueue()
/// queue.delegate = controller
/// queue.setRequestDidFinishSelector(Controller.requestDone)
/// queue.setQueueDidFinishSelector(Controller.queueDone)
/// for url in urls { queue.addOperation(HTTPRequest(url: url)) }
/// queue.go()
/// ```
///
/// Requests in a queue call back on the queue's `callbackQueue` (the main queue unless set):
/// for each event the request's delegate, then its block, then the queue's selector.
/// Every request added is one of the queue's operations until it finishes, waiting or running:
/// `operationCount` and `operations` count it, as NSOperationQueue did for ASINetworkQueue.
/// `requestsCount` counts the requests not yet done (their callbacks not yet run) and
/// `runningRequestsCount` those under way.
///
/// A subclass can override `go()`, `reset()`, `addOperation(_:)`, `addFirst(_:)`,
/// `cancelAllOperations()` and the rest, as an ASINetworkQueue subclass could; an override calls
/// `super`.
///
/// `@unchecked Sendable`: all mutable state lives in `state`, read and written under its lock.
open class NetworkQueue: OperationQueue, @unchecked Sendable {
    let state: Locked<QueueState>
    /// Broadcast when the last request finishes, for threads waiting for the queue to be done.
    /// Taken before `state`'s lock, never after.
    let idleSignal = NSCondition()
    /// True for `HTTPRequest.sharedQueue`, whose requests keep their own callback queues and
    /// progress settings.
    let isShared: Bool

    /// A suspended queue running up to 4 requests at a time once `go()` is called.
    public override init() {
        state = Locked(QueueState(callbackQueue: HTTPRequest.defaultCallbackQueue))
        isShared = false
        super.init()
        configureOperationQueue()
    }

    /// The shared queue: already going, no cancel-on-failure.
    init(sharedQueue: ()) {
        var initial = QueueState(callbackQueue: HTTPRequest.defaultCallbackQueue)
        initial.isGoing = true
        initial.shouldCancelAllRequestsOnFailure = false
        state = Locked(initial)
        isShared = true
        super.init()
        name = "Courier shared queue"
        configureOperationQueue()
    }

    /// The OperationQueue beneath has no limit (the queue's slots are the limit) and starts its
    /// operations on one serial queue shared by every NetworkQueue: `start()` only marks an
    /// operation started, so one thread that takes them in turn wakes less often than a pool.
    private func configureOperationQueue() {
        super.maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
        underlyingQueue = Self.operationStarts
    }

    private static let operationStarts = DispatchQueue(label: "Courier.NetworkQueue.operationStarts")

    // MARK: - Running

    /// Starts the queue: requests added before start now, up to `maxConcurrentOperationCount`
    /// at a time; requests added later start at once. Simple progress delegates hear 0 first.
    open func go() {
        let (wasGoing, isSimple, download, upload, callbackQueue) = state.withLock { state in
            defer { state.isGoing = true }
            return (
                state.isGoing, !state.showAccurateProgress, state.downloadProgressDelegate,
                state.uploadProgressDelegate,
                state.callbackQueue
            )
        }
        if !wasGoing, isSimple, download != nil || upload != nil {
            // Through the callback queue's drainer, as the requests' callbacks go: a thread that
            // drains them by hand while it waits for this queue runs this first, not after.
            CallbackMailbox(drainer: .for(callbackQueue), owner: nil).post { [weak self] in
                guard let self else { return }
                let (download, upload) = self.state.withLock {
                    ($0.downloadProgressDelegate, $0.uploadProgressDelegate)
                }
                download?.setProgress(0)
                upload?.setProgress(0)
            }
        }
        startWaitingRequests()
    }

    /// False after `go()`. Setting it true holds back requests that have not started; setting it
    /// false is `go()`.
    open override var isSuspended: Bool {
        get { !state.withLock { $0.isGoing } }
        set {
            if newValue {
                state.withLock { $0.isGoing = false }
            } else {
                go()
            }
        }
    }

    /// How many requests run at once (4).
    open override var maxConcurrentOperationCount: Int {
        get { state.withLock { $0.maxConcurrentRequests } }
        set {
            state.withLock { $0.maxConcurrentRequests = newValue }
            startWaitingRequests()
        }
    }

    // MARK: - Adding

    /// Adds a request; anything that is not an `HTTPRequest` traps.
    open override func addOperation(_ operation: Operation) {
        enqueue(Self.request(from: operation), first: false)
    }

    /// Adds requests; anything that is not an `HTTPRequest` traps.
    open override func addOperations(_ operations: [Operation], waitUntilFinished wait: Bool) {
        let requests = operations.map(Self.request(from:))
        for request in requests { enqueue(request, first: false) }
        if wait { waitWhile { requests.contains { !$0.isFinished } } }
    }

    /// A barrier is not a request: traps.
    open override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        preconditionFailure("NetworkQueue runs only HTTPRequest operations; a barrier block cannot be added")
    }

    /// Adds a request to run next, before every waiting one; of several, the latest added first
    /// (ABRequestManager's addRequestWrapperFirst: fetch a token, then retry).
    open func addFirst(_ request: HTTPRequest) {
        enqueue(request, first: true)
    }

    private static func request(from operation: Operation) -> HTTPRequest {
        guard let request = operation as? HTTPRequest else {
            preconditionFailure(
                "NetworkQueue runs only HTTPRequest operations; \(type(of: operation)) cannot be added")
        }
        return request
    }

    // MARK: - Cancelling and waiting

    /// Zeroes the byte counts, then cancels every request, waiting or running: each fails with
    /// `requestCancelled`.
    open override func cancelAllOperations() {
        cancelAllRequests()
    }

    /// Cancels every request, forgets the delegate, progress delegates and selectors (but not the
    /// redirect selector), and suspends the queue again until the next `go()`.
    open func reset() {
        cancelAllOperations()
        state.withLock { state in
            state.delegate = nil
            state.downloadProgressDelegate = nil
            state.uploadProgressDelegate = nil
            let redirect = state.selectors.requestWillRedirect
            state.selectors = QueueSelectors()
            state.selectors.requestWillRedirect = redirect
            state.requestsFinished = 0
            state.isGoing = false
        }
    }

    /// Waits until every request has finished, from any thread or queue. Where the waiting code
    /// is itself the queue the callbacks go to, it runs them while it waits: on the main thread,
    /// in a main-queue block (`dispatchMain()`, top-level code after an `await`, `@MainActor`
    /// code), and inside a block of a serial `callbackQueue` of your own. So
    /// `queue.go(); queue.waitUntilAllOperationsAreFinished()` works wherever it is written.
    ///
    /// Called from a callback of one of this queue's own requests, it stops the program with a
    /// message instead of waiting for ever: that request cannot finish until its callback returns.
    open override func waitUntilAllOperationsAreFinished() {
        waitWhile { hasUnfinishedRequests }
    }

    /// Waits while `isWaiting` holds: on the main thread it runs the main queue meanwhile; on a
    /// callback queue (one with a drainer) it runs that queue's request callbacks by hand;
    /// elsewhere it sleeps until a request finishes, looking again at least every 0.1 s.
    private func waitWhile(_ isWaiting: () -> Bool) {
        precondition(
            !CallbackMailbox.isDrainingOnThisThread(for: ObjectIdentifier(self)),
            Self.waitInsideOwnCallback)
        if Thread.isMainThread {
            // The run loop runs main-queue blocks, but not inside one (a main-queue block that
            // waits, under RunLoop.main.run()): there the callbacks are run by hand.
            let drainer = CallbackDrainer.current
            while isWaiting() {
                drainer?.runReady()
                guard isWaiting() else { break }
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
            }
        } else if let drainer = CallbackDrainer.current {
            drainer.drainByHand(while: isWaiting)
        } else {
            idleSignal.lock()
            state.withLock { $0.waitingThreads += 1 }
            defer {
                state.withLock { $0.waitingThreads -= 1 }
                idleSignal.unlock()
            }
            while isWaiting() { _ = idleSignal.wait(until: Date(timeIntervalSinceNow: 0.1)) }
        }
    }

    static let waitInsideOwnCallback = """
        NetworkQueue: waitUntilAllOperationsAreFinished() (or addOperations(_:waitUntilFinished: true)) \
        was called from a callback of one of this queue's own requests; that request cannot finish \
        until its callback returns, so the wait would never end. Wait from outside the queue's \
        callbacks, or hear the end through queueDidFinishSelector or `await queue.allFinished()`.
        """

    /// Wakes the threads waiting in `waitUntilAllOperationsAreFinished()` or
    /// `addOperations(_:waitUntilFinished:)`.
    func signalIdle() {
        idleSignal.lock()
        idleSignal.broadcast()
        idleSignal.unlock()
    }
}
