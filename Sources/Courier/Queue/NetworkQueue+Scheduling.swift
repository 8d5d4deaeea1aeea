import Foundation

/// The queue keeps requests that have not started in its own list, so that `addFirst(_:)` can
/// put one in front, and hands them to the underlying `OperationQueue` only when a slot is free.
extension NetworkQueue {
    func enqueue(_ request: HTTPRequest, first: Bool) {
        guard let joining = request.claimForQueue() else {
            preconditionFailure("\(request) is already in a queue or has started; add a copy() instead")
        }
        if joining.isComplete {
            // Cancelled before it was added: its failure has been delivered; the operation
            // queue only has to start it so that it finishes. It counts for nothing, but holds
            // a slot until then, which its finishing gives back.
            request.state.withLock { state in
                state.queue = self
                state.countsInQueue = false
            }
            state.withLock { $0.running += 1 }
            run(request)
            return
        }
        let (postLength, isGET) = (joining.postLength, joining.isGET)
        let (generation, isAccurate, callbackQueue, drainer, probes) = state.withLock { state in
            state.requestsCount += 1
            if !isShared {
                // ASI counts a request in the totals when it is added: one step each for simple
                // progress; the body for accurate progress (the download once its size is known).
                if state.showAccurateProgress {
                    state.totalBytesToUpload += postLength
                } else {
                    state.totalBytesToDownload += 1
                    state.totalBytesToUpload += 1
                }
            }
            // ASI learns the size of each GET added before go() with a HEAD request first.
            let probes = !isShared && state.showAccurateProgress && !state.isGoing && isGET
            if probes {
                state.unansweredProbes += 1
                if first { state.probing.insert(request, at: 0) } else { state.probing.append(request) }
            }
            return (
                state.generation, state.showAccurateProgress, state.callbackQueue, Self.drainer(in: &state), probes
            )
        }
        request.adopt(
            by: self, generation: generation, showAccurateProgress: isAccurate, callbackQueue: callbackQueue,
            drainer: drainer)
        // A GET with a probe joins the waiting list when every probe has answered.
        let next = probes ? request.makeProbe() : request
        if probes {
            next.adopt(
                by: self, generation: generation, showAccurateProgress: false, callbackQueue: callbackQueue,
                drainer: drainer)
        }
        state.withLock { state in
            if first { state.waiting.prepend(next) } else { state.waiting.append(next) }
        }
        startWaitingRequests()
    }

    /// A HEAD probe ended. Its size goes into the totals on the GET's behalf (a missing
    /// Content-Length makes the GET one step); a probe that failed fails the GET with the
    /// probe's error, without running it. Once every probe has answered, the GETs run.
    func probeEnded(_ probe: HTTPRequest, for request: HTTPRequest) {
        let failure = probe.error
        let isProbing = state.withLock { state -> Bool in
            // cancelAllOperations() may have taken the GET away already.
            guard let index = state.probing.firstIndex(where: { $0 === request }) else { return false }
            state.unansweredProbes -= 1
            if failure != nil {
                state.probing.remove(at: index)
                state.running += 1
            }
            return true
        }
        guard isProbing else { return }
        if let failure {
            request.end(with: failure)
            run(request)
        } else {
            let length = probe.responseHeaders["Content-Length"].flatMap { Int64($0.trimmingHTTPWhitespace()) }
            request.takeProbedSize(length)
            self.request(
                request, madeProgress: [.downloadSize(length ?? 1)], generation: request.read(\.queueGeneration))
        }
        state.withLock { state in
            guard state.unansweredProbes == 0 else { return }
            for probed in state.probing { state.waiting.append(probed) }
            state.probing.removeAll()
        }
        startWaitingRequests()
    }

    /// Hands waiting requests to the operation queue while there are free slots.
    func startWaitingRequests() {
        // One at a time, each under the lock for its slot: usually only one slot is free, and
        // this way there is no list of them to allocate.
        while let request = state.withLock({ state -> HTTPRequest? in
            guard state.isGoing, !state.isHeldForReachability else { return nil }
            let limit = state.maxConcurrentRequests > 0 ? state.maxConcurrentRequests : Int.max
            guard state.running < limit, let request = state.waiting.popFirst() else { return nil }
            state.running += 1
            return request
        }) {
            run(request)
        }
    }

    /// Starts a request that holds a slot (`running` already counts it).
    ///
    /// The queue starts it itself, on this thread: `start()` only hands the transfer to the
    /// engine and returns. Going through `OperationQueue.addOperation` instead costs its
    /// scheduling, a dispatch to a worker thread that calls `start()`, and its bookkeeping when
    /// the request finishes: about 10,000 instructions, a tenth of a small GET. A request with
    /// unfinished dependencies still goes to the OperationQueue, which starts it once they have
    /// finished.
    private func run(_ request: HTTPRequest) {
        // isReady: no dependency left unfinished (cheaper to ask than for the dependencies).
        if request.isReady {
            state.withLock { $0.started.append(request) }
            request.start()
        } else {
            request.state.withLock { $0.runsInOperationQueue = true }
            super.addOperation(request)
        }
    }

    /// A waiting request was cancelled: it goes to the operation queue at once, which starts it,
    /// and it finishes without running, whatever the limit or `go()`.
    func requestWasCancelled(_ request: HTTPRequest) {
        let wasWaiting = state.withLock { state -> Bool in
            guard state.waiting.remove(request) else { return false }
            state.running += 1
            return true
        }
        if wasWaiting { run(request) }
    }

    /// A request posted `isFinished`: its slot is free.
    func requestFinishedRunning(_ request: HTTPRequest) {
        state.withLock { state in
            state.running -= 1
            if let index = state.started.firstIndex(where: { $0 === request }) {
                state.started.swapAt(index, state.started.count - 1)
                state.started.removeLast()
            }
        }
        startWaitingRequests()
        if !hasUnfinishedRequests { signalIdle() }
    }

    /// The drainer for requests calling back on the queue's callback queue, made when first
    /// needed. Under the queue's lock.
    private static func drainer(in state: inout QueueState) -> CallbackDrainer {
        if let drainer = state.drainer { return drainer }
        let drainer = CallbackDrainer(queue: state.callbackQueue)
        state.drainer = drainer
        return drainer
    }

    var hasUnfinishedRequests: Bool {
        state.withLock { !$0.waiting.isEmpty || $0.running > 0 || !$0.probing.isEmpty }
    }

    func cancelAllRequests() {
        let waiting = state.withLock { state -> [HTTPRequest] in
            state.bytesDownloadedSoFar = 0
            state.totalBytesToDownload = 0
            state.bytesUploadedSoFar = 0
            state.totalBytesToUpload = 0
            state.generation += 1
            state.held.removeAll()
            state.isHeldForReachability = false
            state.reachabilityMonitor?.stopMonitoring()
            state.reachabilityMonitor = nil
            let waiting = state.waiting.removeAll() + state.probing
            state.probing.removeAll()
            state.unansweredProbes = 0
            state.running += waiting.count
            return waiting
        }
        for request in waiting {
            request.cancel()
            run(request)
        }
        // Running requests (and any a dependency still holds in the OperationQueue).
        for request in state.withLock({ $0.started }) { request.cancel() }
        super.cancelAllOperations()
    }

    /// Cancels every request, forgets the delegate, progress delegates and selectors (but not the
    /// redirect selector), and suspends the queue again until the next `go()`.
    public func reset() {
        cancelAllRequests()
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
}

extension HTTPRequest {
    /// The shared queue `startAsynchronous()` uses: already going, 4 at a time, no
    /// cancel-on-failure; its requests call back on their own `callbackQueue` and keep their own
    /// progress setting.
    public static let sharedQueue = NetworkQueue(sharedQueue: ())

    /// Joins `queue`: callbacks on the queue's callback queue and progress as the queue counts it,
    /// unless it is the shared queue.
    func adopt(
        by queue: NetworkQueue, generation: Int, showAccurateProgress: Bool, callbackQueue: DispatchQueue,
        drainer: CallbackDrainer
    ) {
        state.withLock { state in
            state.queue = queue
            state.queueGeneration = generation
            state.drainer = drainer
            guard !queue.isShared else { return }
            state.queueCallbackQueue = callbackQueue
            state.config.showAccurateProgress = showAccurateProgress
            // The queue has already counted what the request would otherwise announce.
            state.config.shouldResetUploadProgress = false
            if !showAccurateProgress { state.config.shouldResetDownloadProgress = false }
        }
    }
}
