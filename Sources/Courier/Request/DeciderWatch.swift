import Dispatch
import Foundation

/// Notices, for every request that waits for a redirect or credentials decider, when that
/// decider went away without deciding.
///
/// A request holds the object it asked weakly (ASI's delegates are not retained), so the event
/// it needs is that object's deallocation. Swift on Linux offers no way to hear of it: a `weak`
/// reference is zeroed through its side table without telling anyone, and there are no
/// Objective-C associated objects whose `deinit` could report it, nor any deallocation hook for
/// an arbitrary object. The decider's own call (`redirect(to:)`, `applyCredentials`,
/// `cancelAuthentication`) is an event and ends the wait at once; its disappearance can only be
/// looked for. So one watcher looks, for all waiting requests together, every `interval`, and
/// only while some request waits: no timer per request, none at all when nobody waits. A
/// released decider is noticed within `interval` plus a scheduling delay, inside the second
/// Docs/Authentication.md promises.
///
/// Any thread. The checks run on a global queue, outside the watch's lock.
final class DeciderWatch: Sendable {
    static let shared = DeciderWatch()

    /// How often the waiting requests look at their deciders.
    static let interval: TimeInterval = 0.25

    /// One waiting request's look: true while it should be asked again. It may end the wait
    /// (go on with the redirect, fail for want of credentials) before answering false.
    typealias Check = @Sendable () -> Bool

    private struct Watched {
        var checks: [Check] = []
        var isScheduled = false
    }

    private let watched = Locked(Watched())

    /// Looks with `check` at the next turn, and at every turn after while it answers true.
    func watch(_ check: @escaping Check) {
        let schedules = watched.withLock { watched -> Bool in
            watched.checks.append(check)
            defer { watched.isScheduled = true }
            return !watched.isScheduled
        }
        if schedules { scheduleTurn() }
    }

    /// How many requests are being watched, and whether a turn is scheduled. For tests.
    var state: (count: Int, isScheduled: Bool) {
        watched.withLock { ($0.checks.count, $0.isScheduled) }
    }

    private func scheduleTurn() {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval) { self.turn() }
    }

    private func turn() {
        let checks = watched.withLock { watched -> [Check] in
            defer { watched.checks = [] }
            return watched.checks
        }
        let waiting = checks.filter { $0() }
        let schedules = watched.withLock { watched -> Bool in
            // Those that began waiting during this turn are kept with those still waiting.
            watched.checks = waiting + watched.checks
            watched.isScheduled = !watched.checks.isEmpty
            return watched.isScheduled
        }
        if schedules { scheduleTurn() }
    }
}
