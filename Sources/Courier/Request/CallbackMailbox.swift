import CourierThreadSanitizer
import Dispatch
import Foundation
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
    /// Drains this mailbox with others on its callback queue; nil: a synchronous waiter drains.
    private let drainer: CallbackDrainer?
    private let signal: DispatchSemaphore?
    /// The NetworkQueue whose request this is, as an identity: a wait for that queue from inside
    /// one of these events could never end (`isDrainingOnThisThread(for:)`).
    private let owner: ObjectIdentifier?

    /// A mailbox drained on `drainer`'s queue, for a request of the NetworkQueue `owner`.
    init(drainer: CallbackDrainer, owner: ObjectIdentifier?) {
        self.drainer = drainer
        self.owner = owner
        signal = nil
    }

    /// True for a synchronous request's mailbox, drained by the thread waiting in
    /// `startSynchronous()`: such a request never asks a delegate for anything.
    var isSynchronous: Bool { drainer == nil }

    /// A mailbox drained by a waiting thread (`waitAndDrain`).
    init() {
        drainer = nil
        owner = nil
        signal = DispatchSemaphore(value: 0)
    }

    /// Adds an event. Any thread.
    func post(_ event: @escaping Event) {
        let shouldSchedule = pending.withAnnotatedLock { pending -> Bool in
            pending.append(event)
            guard drainer != nil, !pending.drainScheduled else { return false }
            pending.drainScheduled = true
            return true
        }
        if let drainer {
            if shouldSchedule { drainer.schedule(self) }
        } else {
            signal?.signal()
        }
    }

    /// Runs every pending event, including ones posted while draining. On the mailbox's queue
    /// (or the thread draining it by hand).
    func drain() {
        Engine.assertNotEngineThread("delivering callbacks")
        let outer = DrainingOwner.current
        DrainingOwner.current = DrainingOwner.bits(of: owner)
        defer { DrainingOwner.current = outer }
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

    /// Whether the calling thread is running an event of a request of `queue` (a callback of
    /// one of its requests). Any thread.
    static func isDrainingOnThisThread(for queue: ObjectIdentifier) -> Bool {
        DrainingOwner.current == DrainingOwner.bits(of: queue)
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

/// The NetworkQueue whose request's events the calling thread is running, if any, as the bits of
/// its identity: a thread-specific value (`pthread_getspecific`, a few instructions), set around
/// each drain. Only compared, never dereferenced, so nothing is retained.
private enum DrainingOwner {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// 0: none.
    static var current: UInt {
        get { UInt(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }

    static func bits(of owner: ObjectIdentifier?) -> UInt {
        owner.map { UInt(bitPattern: $0) } ?? 0
    }
}
