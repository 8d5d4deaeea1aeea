import Foundation

/// Who holds the easy handles, for the load tests: a handle a transfer never gave back, or one
/// that outlived its transfer outside the pool, is a leak they must see.
struct HandleCensus: Sendable, Equatable {
    /// Every easy handle alive (`EasyHandle.liveCount`).
    let live: Int
    /// Those held by a running transfer (`Transfer.handle`).
    let inTransfers: Int
    /// The cookie jar's scratch handle, once it is made (0 or 1).
    let cookieJar: Int

    /// What is left: the idle handles in the engine's pool, at most `Engine.maxIdleHandles` when
    /// nothing leaks.
    var pooled: Int { live - inTransfers - cookieJar }
}

extension Engine {
    /// Counts the handles on the engine thread, between two commands, so the counts agree with
    /// each other. Any thread but the engine's; nil if the engine does not answer within `timeout`.
    func handleCensus(timeout: TimeInterval = 10) -> HandleCensus? {
        let result = Locked<HandleCensus?>(nil)
        let done = DispatchSemaphore(value: 0)
        send(
            .run { [self] in
                let census = HandleCensus(
                    live: EasyHandle.liveCount.load(ordering: .relaxed),
                    inTransfers: running.reduce(0) { $0 + ($1.handle == nil ? 0 : 1) },
                    cookieJar: cookieJar == nil ? 0 : 1)
                result.withLock { $0 = census }
                done.signal()
            })
        guard done.wait(timeout: .now() + timeout) == .success else { return nil }
        return result.withLock { $0 }
    }
}
