import Dispatch
import Foundation

/// Turns a redirect or credentials decider's disappearance into an event
/// (`RequestEvent.deciderGone`) for every request that waits on one.
///
/// A request holds the object it asked weakly (ASI's delegates are not retained), so the event
/// it needs is that object's deallocation. Swift on Linux offers no way to hear of it: a `weak`
/// reference is zeroed through its side table without telling anyone, and there are no
/// Objective-C associated objects whose `deinit` could report it, nor any deallocation hook for
/// an arbitrary object. The decider's own call (`redirect(to:)`, `retryUsingSuppliedCredentials`,
/// `cancelAuthentication`) is an event and ends the wait at once; its disappearance can only be
/// looked for. So one watcher looks, for all waiting requests together, every `interval`, and
/// only while some request waits: no timer per request, none at all when nobody waits. A
/// released decider is noticed within `interval` plus a scheduling delay, inside the second
/// Docs/Authentication.md promises. The request's core decides what the absence means: a
/// redirect goes on to where the server said, a wait for credentials fails.
///
/// Any thread. The events are sent on a global queue, outside the watch's lock.
final class DeciderWatch: Sendable {
    static let shared = DeciderWatch()

    /// How often the waiting requests look at their deciders.
    static let interval: TimeInterval = 0.25

    private struct Watched {
        var requests: [HTTPRequest] = []
        var isScheduled = false
    }

    private let watched = Locked(Watched())

    /// Sends `request` `.deciderGone` at the next turn, and at every turn after while it waits on
    /// a decider.
    func watch(_ request: HTTPRequest) {
        let schedules = watched.withLock { watched -> Bool in
            watched.requests.append(request)
            defer { watched.isScheduled = true }
            return !watched.isScheduled
        }
        if schedules { scheduleTurn() }
    }

    /// How many requests are being watched, and whether a turn is scheduled. For tests.
    var state: (count: Int, isScheduled: Bool) {
        watched.withLock { ($0.requests.count, $0.isScheduled) }
    }

    private func scheduleTurn() {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval) { self.turn() }
    }

    private func turn() {
        let requests = watched.withLock { watched -> [HTTPRequest] in
            defer { watched.requests = [] }
            return watched.requests
        }
        let waiting = requests.filter { request in
            request.send(.deciderGone)
            return request.read(\.core.waitsForDecider)
        }
        let schedules = watched.withLock { watched -> Bool in
            // Those that began waiting during this turn are kept with those still waiting.
            watched.requests = waiting + watched.requests
            watched.isScheduled = !watched.requests.isEmpty
            return watched.isScheduled
        }
        if schedules { scheduleTurn() }
    }
}
