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
/// The queue keeps requests that have not started itself, so `addFirst(_:)` can put one at the
/// front, and starts them itself (a request with dependencies goes through the OperationQueue,
/// which waits for them): `requestsCount` counts every request not yet done and
/// `runningRequestsCount` those under way, while OperationQueue's `operationCount` and
/// `operations` list only requests waiting there for dependencies.
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
    }

    // MARK: - Running

    /// Starts the queue: requests added before start now, up to `maxConcurrentOperationCount`
    /// at a time; requests added later start at once. Simple progress delegates hear 0 first.
    public func go() {
        let (wasGoing, isSimple, download, upload, callbackQueue) = state.withLock { state in
            defer { state.isGoing = true }
            return (
                state.isGoing, !state.showAccurateProgress, state.downloadProgressDelegate,
                state.uploadProgressDelegate,
                state.callbackQueue
            )
        }
        if !wasGoing, isSimple, download != nil || upload != nil {
            callbackQueue.async { [weak self] in
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
        if wait { for request in requests { request.waitUntilFinished() } }
    }

    /// A barrier is not a request: traps.
    open override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        preconditionFailure("NetworkQueue runs only HTTPRequest operations; a barrier block cannot be added")
    }

    /// Adds a request to run next, before every waiting one; of several, the latest added first
    /// (ABRequestManager's addRequestWrapperFirst: fetch a token, then retry).
    public func addFirst(_ request: HTTPRequest) {
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

    /// Waits until every request has finished. On the main thread it keeps running main-queue
    /// callbacks while it waits, so `queue.go(); queue.waitUntilAllOperationsAreFinished()` works.
    open override func waitUntilAllOperationsAreFinished() {
        if Thread.isMainThread {
            while hasUnfinishedRequests {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.01))
            }
        } else {
            idleSignal.lock()
            defer { idleSignal.unlock() }
            while hasUnfinishedRequests { _ = idleSignal.wait(until: Date(timeIntervalSinceNow: 0.1)) }
        }
    }

    /// Wakes `waitUntilAllOperationsAreFinished()`: the queue has nothing left to run.
    func signalIdle() {
        idleSignal.lock()
        idleSignal.broadcast()
        idleSignal.unlock()
    }
}
