import Glibc

/// The one lock type Courier uses: a value guarded by a pthread mutex.
///
/// `@unchecked Sendable` because every read and write of `value` happens inside `withLock`,
/// which holds `mutex` for its whole duration. Never call user code, libcurl or
/// `didChangeValue(forKey:)` from inside `withLock`.
final class Locked<Value>: @unchecked Sendable {
    // The mutex already makes every access exclusive; Swift's dynamic check would only repeat
    // it, on every lock of every request.
    @exclusivity(unchecked) private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ value: consuming Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the guarded value.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// A snapshot of the guarded value.
    var current: Value {
        withLock { $0 }
    }
}
