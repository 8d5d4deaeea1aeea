import Dispatch

/// Everything about a running server that more than one thread touches.
///
/// Only ever accessed through the `Mutex` in ``ServerCore``.
struct ServerState {
    /// Set once by `stop()`; nothing new is accepted or served afterwards.
    var isStopping = false
    /// Whether the listening descriptor is still open. Cleared, under the lock, by the
    /// accept thread when it closes the listener, so `stop()` never shuts down a
    /// descriptor number that has since been reused.
    var listenerOpen = true
    /// Descriptors of accepted connections not yet closed. Removed and closed under
    /// the lock, for the same reason as `listenerOpen`.
    var openConnections: Set<Int32> = []
    /// TCP connections accepted since start or the last `resetRecords()`.
    var connectionsAccepted = 0
    /// The ID the next accepted connection gets. Never reset, so IDs stay unique for
    /// the server's lifetime even across `resetRecords()`.
    var nextConnectionID = 1
    /// Request heads parsed so far.
    var requestsReceived = 0
    /// Complete requests received, in order.
    var records: [RecordedRequest] = []
    /// Connections the client closed or reset while a fault route held or wrote its
    /// response, since start or the last `resetRecords()`.
    var connectionsClosedByClient = 0
    /// Requests the stall-times and status-times routes have seen, per key, since
    /// start or the last `resetRecords()`.
    var hitsByKey: [String: Int] = [:]
    /// Digest nonces issued and the stale-nonce routes already played out, since start or
    /// the last `resetRecords()`.
    var digest = DigestNonceBook()
    /// The S3 service: credentials, buckets, faults, clock.
    var s3 = S3Store()
    /// Threads blocked in `waitForClientClose`, by ticket: the count each waits for and
    /// the semaphore that wakes it. An entry is removed by whoever settles it (the
    /// counting thread when the count is reached, or the waiter on timeout), which is
    /// how a waiter that times out tells whether it was settled in the meantime.
    var closeWaiters: [Int: (count: Int, semaphore: DispatchSemaphore)] = [:]
    /// The ticket the next `waitForClientClose` call gets.
    var nextWaiterTicket = 0
}
