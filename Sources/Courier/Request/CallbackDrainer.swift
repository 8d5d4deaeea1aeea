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
final class CallbackDrainer: Sendable {
    let queue: DispatchQueue

    private struct Ready: Sendable {
        var mailboxes: [CallbackMailbox] = []
        var runScheduled = false
    }

    private let ready = Mutex(Ready())

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// A mailbox has events to run. Any thread.
    func schedule(_ mailbox: CallbackMailbox) {
        let shouldDispatch = ready.withAnnotatedLock { ready -> Bool in
            ready.mailboxes.append(mailbox)
            guard !ready.runScheduled else { return false }
            ready.runScheduled = true
            return true
        }
        if shouldDispatch { queue.async { self.run() } }
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
}
