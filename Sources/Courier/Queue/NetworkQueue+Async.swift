import Foundation

/// Waiting for a queue, and reading its requests as they end, with Swift concurrency: beside
/// ASI's delegates and selectors, which keep working as they do.
///
/// ```swift
/// for url in urls { queue.addOperation(HTTPRequest(url: url)) }
/// for await request in queue.finishedRequests {  // starts the queue
///     print(request.responseStatusCode, request.url)
/// }
/// await queue.allFinished()
/// ```
extension NetworkQueue {
    /// Calls `go()` if the queue has not been started, then returns once every request added
    /// has finished, its callbacks run: the queue is empty (`operationCount` is 0). A queue
    /// with no requests returns at once. Cancelling the awaiting Task cancels the queue's
    /// requests (each fails with `requestCancelled`), and the call returns once they have
    /// finished. Nothing blocks a thread meanwhile.
    public func allFinished() async {
        if isSuspended { go() }
        let id = state.withLock { state -> UInt64 in
            state.nextAsyncWaiter += 1
            return state.nextAsyncWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                state.withLock { $0.emptyWaiters[id] = continuation }
                // It may have emptied before the waiter was in the list: look once now; after
                // this, the request that empties it resumes the waiter.
                resumeEmptyWaitersIfEmpty()
            }
        } onCancel: {
            cancelAllOperations()
        }
    }

    /// Each request of the queue as it finishes or fails, in the order they end, once its own
    /// callbacks (and the queue's selector for it) have run. Like `allFinished()`, it calls
    /// `go()` if the queue has not been started (once the stream is listening), so
    /// `for await request in queue.finishedRequests` right after adding the requests sees every
    /// one. A request that ended before the stream was made is not in it: on a queue you started
    /// yourself, make the stream before `go()`. The stream ends when every request added has
    /// ended: at once for a queue with none left. Each use of the property makes a new stream;
    /// several may be read at once, each seeing every request.
    ///
    /// Cancelling the Task that iterates the stream cancels the queue's requests; leaving the
    /// loop early (`break`) only stops reading.
    public var finishedRequests: AsyncStream<HTTPRequest> {
        let (stream, continuation) = AsyncStream<HTTPRequest>.makeStream()
        let id = state.withLock { state -> UInt64 in
            state.nextAsyncWaiter += 1
            state.finishedStreams[state.nextAsyncWaiter] = continuation
            return state.nextAsyncWaiter
        }
        continuation.onTermination = { [weak self] termination in
            guard let self else { return }
            self.state.withLock { _ = $0.finishedStreams.removeValue(forKey: id) }
            if case .cancelled = termination { self.cancelAllOperations() }
        }
        if isSuspended { go() }
        // A going queue with nothing left to end: no request will finish the stream.
        finishStreamsIfDrained()
        return stream
    }

    /// A request ended (on the callback queue, after its callbacks): the streams get it, and
    /// end when it was the last.
    func yieldToFinishedStreams(_ request: HTTPRequest, remaining: Int, isGoing: Bool) {
        let streams = state.withLock { state -> [AsyncStream<HTTPRequest>.Continuation] in
            guard !state.finishedStreams.isEmpty else { return [] }
            let streams = Array(state.finishedStreams.values)
            if remaining == 0, isGoing { state.finishedStreams.removeAll() }
            return streams
        }
        for stream in streams {
            stream.yield(request)
            if remaining == 0, isGoing { stream.finish() }
        }
    }

    /// `go()` on a queue with nothing in it: its streams end.
    func finishStreamsIfDrained() {
        let streams = state.withLock { state -> [AsyncStream<HTTPRequest>.Continuation] in
            guard state.isGoing, state.requestsCount == 0, !state.finishedStreams.isEmpty else { return [] }
            defer { state.finishedStreams.removeAll() }
            return Array(state.finishedStreams.values)
        }
        for stream in streams { stream.finish() }
    }

    /// Resumes every `allFinished()` waiter once the queue is empty. Called when a request has
    /// left the OperationQueue, and by a new waiter. Outside the queue's lock.
    func resumeEmptyWaitersIfEmpty() {
        guard state.withLock({ !$0.emptyWaiters.isEmpty }), !hasUnfinishedRequests else { return }
        let waiters = state.withLock { state in
            defer { state.emptyWaiters.removeAll() }
            return Array(state.emptyWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }
}
