import Courier
import Foundation

/// The one place that knows how the CLI queues requests: a Courier `NetworkQueue`, with the
/// progress bar drawn from its totals.
///
/// Main-actor isolated: the queue calls back on the main queue, so `onFinish` needs no lock.
@MainActor
final class RequestQueue {
    private let queue = NetworkQueue()
    private var onFinish: (@MainActor () -> Void)?

    /// The bar on standard error, or nil after `--no-progress`. The queue holds its progress
    /// delegate weakly, so this is what keeps the bar alive.
    let progress: ProgressDisplay?

    /// A queue that runs at most `maxConcurrentRequests` requests at once, drawing a progress bar
    /// when `showsProgress` is true.
    init(maxConcurrentRequests: Int, showsProgress: Bool) {
        queue.name = "courier requests"
        queue.maxConcurrentOperationCount = maxConcurrentRequests
        // One bad URL is a result line, not a reason to give up on the others.
        queue.shouldCancelAllRequestsOnFailure = false
        // Bytes, not one step per request: a batch is often one large file and a few small ones.
        queue.showAccurateProgress = true
        // The default, said here because `DownloadBatch`'s blocks and `queueDidFinish` rely on it:
        // they assume the main actor.
        queue.callbackQueue = .main
        if showsProgress {
            let display = ProgressDisplay(queue: queue)
            queue.downloadProgressDelegate = display.bar
            progress = display
        } else {
            progress = nil
        }
    }

    /// Adds a configured request; nothing starts before `go(onFinish:)`.
    func add(_ request: HTTPRequest) {
        queue.addOperation(request)
    }

    /// Starts every request added, at most the limit at a time; `onFinish` runs on the main queue
    /// once the last one is done, after its own callbacks.
    func go(onFinish: @escaping @MainActor () -> Void) {
        self.onFinish = onFinish
        queue.delegate = self
        queue.setQueueDidFinishSelector(RequestQueue.queueDidFinish)
        queue.go()
    }

    /// The queue's `queueDidFinishSelector`: called on its callback queue, the main queue.
    private nonisolated func queueDidFinish(_ queue: NetworkQueue) {
        MainActor.assumeIsolated {
            let onFinish = self.onFinish
            self.onFinish = nil
            onFinish?()
        }
    }
}
