import CourierThreadSanitizer
import Dispatch
import Synchronization

/// Delivers one request's callbacks, in the order they were posted, on the thread that must run
/// them.
///
/// An asynchronous request's mailbox drains on its callback queue: the first post schedules one
/// drain, which runs everything posted until the box is empty, so a burst of events costs one
/// dispatch and order holds even on a concurrent queue. A synchronous request's mailbox is
/// drained by the thread waiting in `startSynchronous()`, which is how callbacks run on the
/// calling thread without deadlock, the main thread included.
///
/// `Sendable`: `pending` is a Mutex; `queue` and `signal` are set once.
final class CallbackMailbox: Sendable {
    typealias Event = @Sendable () -> Void

    /// Most requests post a single event (they finish or fail), which `first` holds without an
    /// array to allocate.
    private struct Pending: Sendable {
        var first: Event?
        var more: [Event] = []
        var drainScheduled = false

        var isEmpty: Bool { first == nil }

        mutating func append(_ event: @escaping Event) {
            if first == nil { first = event } else { more.append(event) }
        }

        /// Moves the events out, leaving the box empty.
        mutating func take() -> Pending {
            defer {
                first = nil
                more = []
            }
            return Pending(first: first, more: more)
        }
    }

    private let pending = Mutex(Pending())
    /// nil: a synchronous waiter drains.
    private let queue: DispatchQueue?
    /// Drains this mailbox with others on `queue`, when its request's NetworkQueue has one.
    private let drainer: CallbackDrainer?
    private let signal: DispatchSemaphore?

    /// A mailbox drained on `queue`: by `drainer` (which must run on that queue) if given, else
    /// by a dispatch of its own.
    init(queue: DispatchQueue, drainer: CallbackDrainer? = nil) {
        self.queue = queue
        self.drainer = drainer
        signal = nil
    }

    /// True for a synchronous request's mailbox, drained by the thread waiting in
    /// `startSynchronous()`: such a request never asks a delegate for anything.
    var isSynchronous: Bool { queue == nil }

    /// A mailbox drained by a waiting thread (`waitAndDrain`).
    init() {
        queue = nil
        drainer = nil
        signal = DispatchSemaphore(value: 0)
    }

    /// Adds an event. Any thread.
    func post(_ event: @escaping Event) {
        let shouldSchedule = pending.withAnnotatedLock { pending -> Bool in
            pending.append(event)
            guard queue != nil, !pending.drainScheduled else { return false }
            pending.drainScheduled = true
            return true
        }
        if let queue {
            guard shouldSchedule else { return }
            if let drainer { drainer.schedule(self) } else { queue.async { self.drain() } }
        } else {
            signal?.signal()
        }
    }

    /// Runs every pending event, including ones posted while draining. On the mailbox's queue.
    func drain() {
        while true {
            // A struct, not a tuple: a closure in a tuple that crosses the generic withLock is
            // re-wrapped, an allocation.
            let taken = pending.withAnnotatedLock { pending -> Pending in
                if pending.isEmpty { pending.drainScheduled = false }
                return pending.take()
            }
            guard let first = taken.first else { return }
            first()
            for event in taken.more { event() }
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
