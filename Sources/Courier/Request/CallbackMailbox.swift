import Dispatch

/// Delivers one request's callbacks, in the order they were posted, on the thread that must run
/// them.
///
/// An asynchronous request's mailbox drains on its callback queue: the first post schedules one
/// drain, which runs everything posted until the box is empty, so a burst of events costs one
/// dispatch and order holds even on a concurrent queue. A synchronous request's mailbox is
/// drained by the thread waiting in `startSynchronous()`, which is how callbacks run on the
/// calling thread without deadlock, the main thread included.
///
/// `@unchecked Sendable`: `pending` is guarded by its lock; `queue` and `signal` are set once.
final class CallbackMailbox: @unchecked Sendable {
    typealias Event = @Sendable () -> Void

    private struct Pending {
        var events: [Event] = []
        var drainScheduled = false
    }

    private let pending = Locked(Pending())
    /// nil: a synchronous waiter drains.
    private let queue: DispatchQueue?
    private let signal: DispatchSemaphore?

    /// A mailbox drained on `queue`.
    init(queue: DispatchQueue) {
        self.queue = queue
        signal = nil
    }

    /// A mailbox drained by a waiting thread (`waitAndDrain`).
    init() {
        queue = nil
        signal = DispatchSemaphore(value: 0)
    }

    /// Adds an event. Any thread.
    func post(_ event: @escaping Event) {
        let shouldSchedule = pending.withLock { pending -> Bool in
            pending.events.append(event)
            guard queue != nil, !pending.drainScheduled else { return false }
            pending.drainScheduled = true
            return true
        }
        if let queue {
            if shouldSchedule { queue.async { self.drain() } }
        } else {
            signal?.signal()
        }
    }

    /// Runs every pending event, including ones posted while draining.
    private func drain() {
        while true {
            let events = pending.withLock { pending -> [Event] in
                // Take the array and leave an empty one: keeping its capacity would copy it.
                let events = pending.events
                pending.events = []
                if events.isEmpty { pending.drainScheduled = false }
                return events
            }
            if events.isEmpty { return }
            for event in events { event() }
        }
    }

    /// Synchronous mailboxes: runs events on this thread as they arrive until `isDone` says the
    /// last one has run.
    func waitAndDrain(until isDone: () -> Bool) {
        while !isDone() {
            signal?.wait()
            drain()
        }
    }
}
