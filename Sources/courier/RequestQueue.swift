import Courier
import Foundation

/// The one place that knows how the CLI queues requests, so that Courier's `NetworkQueue`
/// (a later release) can replace the plain `OperationQueue` here and nowhere else.
struct RequestQueue: Sendable {
    private let queue: OperationQueue

    /// A queue that runs at most `maxConcurrentRequests` requests at once.
    init(maxConcurrentRequests: Int) {
        queue = OperationQueue()
        queue.name = "courier requests"
        queue.maxConcurrentOperationCount = maxConcurrentRequests
    }

    /// Adds a configured request; it starts as soon as a slot is free.
    func add(_ request: HTTPRequest) {
        queue.addOperation(request)
    }
}
