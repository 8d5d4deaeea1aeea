import Foundation

/// The cookie jar from other threads: work on it is sent to the engine thread (`Command.run`),
/// the only thread that may touch the share handle, and the caller waits for it.
extension Engine {
    /// The `threadDictionary` key that marks the engine thread.
    static let threadMarker = "courier.engine"

    /// Whether the calling thread is the engine's.
    static var isEngineThread: Bool { Thread.current.threadDictionary[threadMarker] != nil }

    /// Runs `body` on the engine thread with the shared cookie jar and returns what it returns.
    /// Any thread; on the engine thread itself it runs at once. Waits at most `timeout`
    /// (nil: as long as it takes — the engine thread never blocks, so it is never long), then
    /// throws `CookieJarError.timedOut`; `body` may still run later.
    func withCookieJar<T: Sendable>(
        timeout: TimeInterval? = nil, _ body: @escaping @Sendable (CookieJar) throws -> T
    ) throws -> T {
        if Self.isEngineThread { return try body(try engineCookieJar()) }
        let result = Locked<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        send(
            .run { [self] in
                let outcome = Result { try body(try engineCookieJar()) }
                result.withLock { $0 = outcome }
                done.signal()
            })
        let deadline: DispatchTime = timeout.map { .now() + $0 } ?? .distantFuture
        guard done.wait(timeout: deadline) == .success else { throw CookieJarError.timedOut }
        guard let outcome = result.withLock({ $0 }) else { throw CookieJarError.timedOut }
        return try outcome.get()
    }

    /// Runs `body` on the engine thread with the shared cookie jar, after the commands sent
    /// before it and before those sent after it, without waiting. Any thread.
    func onCookieJar(_ body: @escaping @Sendable (CookieJar) throws -> Void) {
        send(
            .run { [self] in
                do {
                    try body(try engineCookieJar())
                } catch {
                    Self.logFault("the cookie jar: \(error)")
                }
            })
    }

    /// The scratch handle on the cookie share, made when first needed. Engine thread only.
    private func engineCookieJar() throws -> CookieJar {
        if let cookieJar { return cookieJar }
        let jar = try CookieJar(share: share)
        cookieJar = jar
        return jar
    }
}

/// Why the cookie jar could not be reached.
enum CookieJarError: Error, CustomStringConvertible {
    /// The engine thread did not answer in time (only asked for at exit).
    case timedOut

    var description: String { "the engine thread did not answer in time" }
}
