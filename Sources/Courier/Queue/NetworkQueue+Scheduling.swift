import Foundation

/// Every request added to a NetworkQueue is at once an operation of the OperationQueue beneath it,
/// so `operationCount` and `operations` count it until it finishes, as NSOperationQueue did for
/// ASINetworkQueue. The OperationQueue has no limit of its own and starts each operation as soon as
/// its dependencies allow; that only marks it started. The NetworkQueue decides the order
/// (`addFirst(_:)`) and the moment each request's first attempt begins: when it gives the request
/// a slot. So the OperationQueue's list of waiting operations stays empty, and its scheduling
/// costs the same whatever the number of requests.
extension NetworkQueue {
    func enqueue(_ request: HTTPRequest, first: Bool) {
        // An accurate queue counts the body when the request joins, as ASI's built it then: a
        // gzipped one is measured now, on the caller's thread, and not under the request's lock.
        // Other queues leave that to the attempt (startAsynchronous returns at once).
        if !isShared, showAccurateProgress { request.measureCompressedBody() }
        guard let joining = request.claimForQueue() else {
            preconditionFailure("\(request) is already in a queue or has started; add a copy() instead")
        }
        if joining.isComplete {
            // Cancelled before it was added: its failure has been delivered; it counts for
            // nothing, and finishes once the OperationQueue has started it.
            request.write(\.queue, self)
            super.addOperation(request)
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
        // The request corrects that count once its body is built (a FormDataRequest's at start).
        if !isShared { request.uploadCountedByQueue(isAccurate ? postLength : 1) }
        // A GET with a probe joins the waiting list when every probe has answered. The probe is
        // the queue's own business: it holds a slot, but is no operation of the OperationQueue.
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
        super.addOperation(request)
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
            if failure != nil { state.probing.remove(at: index) }
            return true
        }
        guard isProbing else { return }
        if let failure {
            request.end(with: failure)
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

    /// Gives free slots to waiting requests, in order, passing over any whose dependencies have
    /// not finished.
    func startWaitingRequests() {
        // One at a time, each under the lock for its slot: usually only one slot is free, and
        // this way there is no list of them to allocate.
        while let request = state.withLock({ state -> HTTPRequest? in
            guard state.isGoing, !state.isHeldForReachability else { return nil }
            let limit = state.maxConcurrentRequests > 0 ? state.maxConcurrentRequests : Int.max
            guard state.running < limit else { return nil }
            var passesOver = false
            let next = state.waiting.popFirst { request in
                let mayRun = Self.mayRun(request)
                passesOver = passesOver || !mayRun
                return mayRun
            }
            // Requests that finish make the queue look again only once one was passed over.
            if passesOver { state.hasPassedOverRequests = true }
            guard let request = next else { return nil }
            state.granted.grant(request)
            return request
        }) {
            request.runGrantedByQueue()
        }
    }

    /// Whether a waiting request can have a slot now. One with dependencies is marked first, so
    /// that when the OperationQueue starts it (its dependencies done, maybe while this runs), it
    /// asks the queue to look again. Under the queue's lock; takes the request's.
    private static func mayRun(_ request: HTTPRequest) -> Bool {
        guard !request.dependencies.isEmpty else { return true }
        request.send(.membership(.passedOverForDependencies))
        return request.isReady
    }

    /// A request ended before it had a slot (cancelled, or its probe failed): it leaves the
    /// waiting list, and finishes once its failure callbacks have run.
    func requestEndedWhileWaiting(_ request: HTTPRequest) {
        state.withLock { state in _ = state.waiting.remove(request) }
    }

    /// A request is about to post `isFinished`: if it held a slot, the next waiting request has
    /// it now.
    func requestWillFinishRunning(_ request: HTTPRequest) {
        let heldSlot = state.withLock { $0.granted.release(request) }
        if heldSlot { startWaitingRequests() }
    }

    /// A request posted `isFinished`, and so left the OperationQueue. Requests that depended on
    /// it may run now.
    func requestDidFinishRunning(_ request: HTTPRequest) {
        let (rescans, isWaitedFor, isAwaited) = state.withLock {
            ($0.hasPassedOverRequests, $0.waitingThreads > 0, !$0.emptyWaiters.isEmpty)
        }
        if rescans { startWaitingRequests() }
        if isWaitedFor { signalIdle() }
        if isAwaited { resumeEmptyWaitersIfEmpty() }
    }

    /// The drainer for requests calling back on the queue's callback queue, made when first
    /// needed. Under the queue's lock.
    private static func drainer(in state: inout QueueState) -> CallbackDrainer {
        if let drainer = state.drainer { return drainer }
        let drainer = CallbackDrainer.for(state.callbackQueue)
        state.drainer = drainer
        return drainer
    }

    /// True while a request added to the queue has not finished: one waiting for a slot, running,
    /// or finishing (still an operation of the OperationQueue).
    var hasUnfinishedRequests: Bool {
        state.withLock { !$0.waiting.isEmpty || $0.running > 0 || !$0.probing.isEmpty } || operationCount > 0
    }

    func cancelAllRequests() {
        let (waiting, granted) = state.withLock { state -> ([HTTPRequest], [HTTPRequest]) in
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
            return (waiting, state.granted.requests)
        }
        // Every operation the OperationQueue holds is in one of these lists until it finishes.
        for request in waiting { request.cancel() }
        for request in granted { request.cancel() }
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
            // Its first attempt waits for a slot, whenever the OperationQueue starts it. A probe
            // is no operation: the queue starts it when it has a slot.
            _ = state.core.handle(.membership(.joinedQueue))
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
