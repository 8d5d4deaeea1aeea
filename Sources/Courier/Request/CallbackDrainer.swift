import CourierThreadSanitizer
import Dispatch
import Synchronization

/// Drains request mailboxes on one callback queue, many per dispatch.
///
/// A queue's requests share its callback queue, and under load several finish in one turn of
/// the engine. Each mailbox dispatching its own drain cost a `DispatchQueue.async` per request
/// (a closure, a block copy and a continuation, ~2,000 instructions); through the drainer the
/// first mailbox that becomes ready dispatches one run, which drains every mailbox that became
/// ready meanwhile, in the order they did. Each mailbox still runs its own events in order.
///
/// A dispatch queue has one drainer at a time (`for(_:)`), found again from code running on that
/// queue (`current`). That is what lets a thread that waits for a NetworkQueue while it is itself
/// the callback queue (a main-queue block after an `await` in top-level code, a serial callback
/// queue of your own) run the callbacks it waits for instead of blocking them for ever
/// (`drainByHand(while:)`).
final class CallbackDrainer: Sendable {
    let queue: DispatchQueue

    private struct Ready: Sendable {
        var mailboxes: [CallbackMailbox] = []
        var runScheduled = false
        /// Threads draining by hand, which a newly ready mailbox must wake.
        var handDrainers = 0
    }

    private let ready = Mutex(Ready())
    /// Signalled when a mailbox becomes ready while a thread drains by hand.
    private let handWakeup = DispatchSemaphore(value: 0)

    private init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// What a dispatch queue keeps of its drainer: weakly, since the drainer holds the queue
    /// (its mailboxes and the NetworkQueues using it keep it alive; once none does, the next
    /// `for(_:)` makes another).
    private final class Reference: @unchecked Sendable {
        // @unchecked Sendable: set once, in init, and only read after.
        weak var drainer: CallbackDrainer?
        init(_ drainer: CallbackDrainer) { self.drainer = drainer }
    }

    private static let key = DispatchSpecificKey<Reference>()
    /// Makes finding-or-making one step, so two threads never make two drainers for one queue
    /// (a mailbox on the second would be invisible to a thread draining the first by hand).
    private static let making = Mutex(())

    /// The drainer of `queue`, made when first needed. Any thread.
    static func `for`(_ queue: DispatchQueue) -> CallbackDrainer {
        if let drainer = queue.getSpecific(key: key)?.drainer { return drainer }
        return making.withAnnotatedLock { _ in
            if let drainer = queue.getSpecific(key: key)?.drainer { return drainer }
            let drainer = CallbackDrainer(queue: queue)
            queue.setSpecific(key: key, value: Reference(drainer))
            return drainer
        }
    }

    /// The drainer of the dispatch queue the calling code runs on, if it has one: the main
    /// queue's on the main thread or in a main-queue block, a serial callback queue's inside one
    /// of its blocks. nil on a global queue or a thread of no queue.
    static var current: CallbackDrainer? {
        DispatchQueue.getSpecific(key: key)?.drainer
    }

    /// A mailbox has events to run. Any thread.
    func schedule(_ mailbox: CallbackMailbox) {
        let (shouldDispatch, wakesHandDrainer) = ready.withAnnotatedLock { ready -> (Bool, Bool) in
            ready.mailboxes.append(mailbox)
            let wakes = ready.handDrainers > 0
            guard !ready.runScheduled else { return (false, wakes) }
            ready.runScheduled = true
            return (true, wakes)
        }
        if shouldDispatch { queue.async { self.run() } }
        if wakesHandDrainer { handWakeup.signal() }
    }

    /// On `queue`: drains ready mailboxes until none is left.
    private func run() {
        var batch: [CallbackMailbox] = []
        while true {
            ready.withAnnotatedLock { ready in
                swap(&ready.mailboxes, &batch)
                if batch.isEmpty { ready.runScheduled = false }
            }
            if batch.isEmpty { return }
            for mailbox in batch { mailbox.drain() }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Runs ready mailboxes on the calling thread, which blocks `queue` (it runs on it), for as
    /// long as `isWaiting` holds; sleeps between batches until one becomes ready (or 50 ms pass,
    /// for waits that end without a callback). A run already dispatched to `queue` stays
    /// scheduled and finds the mailboxes drained when the queue is free again. Each mailbox is
    /// drained by one thread at a time (its own flag), so order holds.
    func drainByHand(while isWaiting: () -> Bool) {
        ready.withAnnotatedLock { $0.handDrainers += 1 }
        defer { ready.withAnnotatedLock { $0.handDrainers -= 1 } }
        while isWaiting() {
            if !runReady() { _ = handWakeup.wait(timeout: .now() + .milliseconds(50)) }
        }
    }

    /// Drains the mailboxes ready now on the calling thread, which runs on `queue` or blocks it;
    /// false if none was.
    @discardableResult
    func runReady() -> Bool {
        let batch = ready.withAnnotatedLock { ready -> [CallbackMailbox] in
            defer { ready.mailboxes.removeAll(keepingCapacity: true) }
            return ready.mailboxes
        }
        for mailbox in batch { mailbox.drain() }
        return !batch.isEmpty
    }
}
