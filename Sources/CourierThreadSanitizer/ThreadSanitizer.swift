import Synchronization

// `Synchronization.Mutex` is invisible to ThreadSanitizer on Linux: it takes a futex word with
// atomics TSan does not treat as a lock, so every access it guards is reported as a race
// (linux.md §8). In a build with `-DCOURIER_TSAN` (scripts/sanitize.sh thread), each lock tells
// TSan what it does: `__tsan_acquire(address)` right after taking the mutex and
// `__tsan_release(address)` right before leaving it, one address per lock. Without the flag
// these helpers compile to exactly the plain `withLock`: release builds pay nothing.
//
// One target for Courier and CourierTestServer, which both lock this way. Its names are `package`,
// not `public`: an app that links Courier never sees `withAnnotatedLock` on its own mutexes.

#if COURIER_TSAN
// `@usableFromInline`: called from the transparent helpers below, inlined into other modules.
@usableFromInline
@_silgen_name("__tsan_acquire")
package func tsanAcquire(_ address: UnsafeRawPointer)

@usableFromInline
@_silgen_name("__tsan_release")
package func tsanRelease(_ address: UnsafeRawPointer)
#endif

extension Mutex where Value: ~Copyable {
    /// `withLock`, seen by ThreadSanitizer in a `COURIER_TSAN` build: the mutex's address stands
    /// for the lock.
    // Transparent, not just inline-always: inlined before any optimization, so a build without
    // the flag compiles the call site exactly as the `withLock` it replaces.
    @_transparent
    package borrowing func withAnnotatedLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        #if COURIER_TSAN
        // The mutex's own address: a `Mutex` is address-only (its value cell has a raw layout),
        // so a borrow of it is its storage. Not the value's address: `&value` before the acquire
        // would itself be an access TSan checks.
        let address = withUnsafePointer(to: self) { UnsafeRawPointer($0) }
        return try withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            tsanAcquire(address)
            defer { tsanRelease(address) }
            return try body(&value)
        }
        #else
        try withLock(body)
        #endif
    }
}

extension Mutex where Value == Void {
    /// Runs `body` holding the mutex, for a value stored beside it (`Locked`, a request's state,
    /// a PAC heap). `owner` is the object that holds the mutex: in a `COURIER_TSAN` build its
    /// address stands for the lock (a `Void` value has no address of its own).
    ///
    /// `withLock` wants a `sending` result; a value guarded by this mutex is not handed to
    /// another isolation domain by returning it (the caller already shares it through the lock),
    /// so the result is carried out through a local instead.
    @inlinable @inline(__always)
    package func guarding<Result>(visibleToTSanAs owner: AnyObject, _ body: () throws -> Result) rethrows -> Result {
        nonisolated(unsafe) var result: Result?
        try withLock { _ in
            #if COURIER_TSAN
            let address = UnsafeRawPointer(Unmanaged.passUnretained(owner).toOpaque())
            tsanAcquire(address)
            defer { tsanRelease(address) }
            #endif
            result = try body()
        }
        return result.unsafelyUnwrapped
    }
}
