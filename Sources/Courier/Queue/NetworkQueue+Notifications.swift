import Foundation

/// What a queue hears from its requests, on its callback queue, after the request's own
/// delegate and blocks.
extension NetworkQueue {
    func requestDidStart(_ request: HTTPRequest) {
        let target = state.withLock { QueueTarget(delegate: $0.delegate, selector: $0.selectors.requestDidStart) }
        if let delegate = target.delegate, let selector = target.selector { selector(delegate, request) }
    }

    func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
        let (delegate, selector) = state.withLock { ($0.delegate, $0.selectors.requestDidReceiveResponseHeaders) }
        if let delegate, let selector { selector(delegate, request, headers) }
    }

    /// A request finished or failed. The queue forgets it, tells its delegate (unless the
    /// request's delegates were cleared), calls `queueDidFinishSelector` when it was the last, and
    /// then, for a failure, cancels the rest if asked to: each of those comes back here, so the
    /// queue finishes exactly once.
    func requestEnded(_ request: HTTPRequest, failed: Bool, notifies: Bool) {
        let unreachable = request.read(\.core.membership.endedUnreachable)
        let ending = state.withLock { state in
            state.requestsCount -= 1
            state.requestsFinished += 1
            let selector =
                unreachable
                ? state.selectors.requestDidBecomeUnreachable
                : failed ? state.selectors.requestDidFail : state.selectors.requestDidFinish
            return Ending(
                target: QueueTarget(delegate: state.delegate, selector: selector),
                queueDidFinish: state.selectors.queueDidFinish, remaining: state.requestsCount,
                // A request whose delegates were cleared is not the queue's business (ASI).
                cancelsRest: failed && notifies && !unreachable && state.shouldCancelAllRequestsOnFailure,
                isGoing: state.isGoing)
        }
        let delegate = ending.target.delegate
        if notifies, let delegate, let selector = ending.target.selector { selector(delegate, request) }
        if ending.remaining == 0, let delegate, let queueDidFinish = ending.queueDidFinish {
            queueDidFinish(delegate, self)
        }
        yieldToFinishedStreams(request, remaining: ending.remaining, isGoing: ending.isGoing)
        if ending.cancelsRest, ending.remaining > 0 { cancelAllRequests() }
    }

    /// Progress from one of the queue's requests: the totals move, and the queue's progress
    /// delegates hear the same changes and the queue's fraction done. Progress from a request the
    /// queue wrote off with `cancelAllOperations()` does not count.
    func request(_ request: HTTPRequest, madeProgress changes: [ProgressChange], generation: Int) {
        typealias Update = (
            download: (any ProgressDelegate)?, upload: (any ProgressDelegate)?, downloadFraction: Double?,
            uploadFraction: Double?
        )
        let update = state.withLock { state -> Update? in
            guard state.generation == generation else { return nil }
            var downloadMoved = false
            var uploadMoved = false
            for change in changes {
                switch change {
                case .received(let bytes):
                    state.bytesDownloadedSoFar += bytes
                    downloadMoved = true
                case .downloadSize(let bytes):
                    state.totalBytesToDownload += bytes
                    downloadMoved = true
                case .sent(let bytes):
                    state.bytesUploadedSoFar += bytes
                    uploadMoved = true
                case .uploadSize(let bytes):
                    state.totalBytesToUpload += bytes
                    uploadMoved = true
                }
            }
            return (
                state.downloadProgressDelegate, state.uploadProgressDelegate,
                downloadMoved ? Self.fraction(state.bytesDownloadedSoFar, of: state.totalBytesToDownload) : nil,
                uploadMoved ? Self.fraction(state.bytesUploadedSoFar, of: state.totalBytesToUpload) : nil
            )
        }
        guard let update else { return }
        for change in changes {
            switch change {
            case .received(let bytes): update.download?.request(request, didReceiveBytes: bytes)
            case .downloadSize(let bytes): update.download?.request(request, incrementDownloadSizeBy: bytes)
            case .sent(let bytes): update.upload?.request(request, didSendBytes: bytes)
            case .uploadSize(let bytes): update.upload?.request(request, incrementUploadSizeBy: bytes)
            }
        }
        if let fraction = update.downloadFraction { update.download?.setProgress(fraction) }
        if let fraction = update.uploadFraction { update.upload?.setProgress(fraction) }
    }

    static func fraction(_ done: Int64, of total: Int64) -> Double {
        guard total > 0 else { return 0 }
        return min(1, max(0, Double(done) / Double(total)))
    }
}

extension NetworkQueue {
    /// True when the queue's delegate decides its requests' redirects.
    var asksBeforeRedirect: Bool {
        state.withLock { $0.delegate != nil && $0.selectors.requestWillRedirect != nil }
    }

    /// Asks the queue's delegate where `request` goes next; returns the delegate asked, or nil
    /// when there is none to ask any more.
    func request(_ request: HTTPRequest, willRedirectTo url: URL) -> AnyObject? {
        let (delegate, selector) = state.withLock { ($0.delegate, $0.selectors.requestWillRedirect) }
        guard let delegate, let selector else { return nil }
        selector(delegate, request, url)
        return delegate
    }
}

extension NetworkQueue {
    /// Whether the queue wants its requests' started and headers events: for its delegate's
    /// selectors, or for progress.
    var listensToAttempts: Bool {
        state.withLock { state in
            (state.delegate != nil
                && (state.selectors.requestDidStart != nil || state.selectors.requestDidReceiveResponseHeaders != nil))
                || state.showAccurateProgress || state.downloadProgressDelegate != nil
                || state.uploadProgressDelegate != nil
        }
    }
}

// Structs, not tuples: a closure in a tuple returned through the generic withLock is re-wrapped
// (an allocation); in a struct it keeps its own form.

/// A queue's delegate and one of its request selectors.
private struct QueueTarget {
    var delegate: AnyObject?
    var selector: QueueSelectors.RequestSelector?
}

/// What the queue does when one of its requests ends.
private struct Ending {
    var target: QueueTarget
    var queueDidFinish: (@Sendable (AnyObject, NetworkQueue) -> Void)?
    var remaining: Int
    var cancelsRest: Bool
    var isGoing: Bool
}
