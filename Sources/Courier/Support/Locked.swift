import Synchronization

/// The one lock type Courier uses: a value guarded by a mutex.
///
/// The mutex is `Synchronization.Mutex` (a futex word) stored inline, so a `Locked` is one
/// allocation and taking it uncontended is one atomic compare-and-swap; a pthread mutex needed
/// an allocation of its own and a library call each way.
///
/// `@unchecked Sendable` because every read and write of `value` happens inside `withLock`,
/// which holds `mutex` for its whole duration. Never call user code, libcurl or
/// `didChangeValue(forKey:)` from inside `withLock`.
final class Locked<Value>: @unchecked Sendable {
    // The mutex already makes every access exclusive; Swift's dynamic check would only repeat
    // it, on every lock of every request.
    @exclusivity(unchecked) private var value: Value
    private let mutex = Mutex<Void>(())

    init(_ value: consuming Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the guarded value.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.guarding { try body(&value) }
    }

    /// A snapshot of the guarded value.
    var current: Value {
        withLock { $0 }
    }
}

extension Mutex where Value == Void {
    /// Runs `body` holding the mutex, for a value stored beside it (`Locked`, a request's state).
    ///
    /// `withLock` wants a `sending` result; a value guarded by this mutex is not handed to
    /// another isolation domain by returning it (the caller already shares it through the lock),
    /// so the result is carried out through a local instead.
    @inline(__always)
    func guarding<Result>(_ body: () throws -> Result) rethrows -> Result {
        nonisolated(unsafe) var result: Result?
        try withLock { _ in result = try body() }
        return result.unsafelyUnwrapped
    }
}
