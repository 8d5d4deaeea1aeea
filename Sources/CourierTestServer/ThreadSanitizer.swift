import Synchronization

// `Synchronization.Mutex` is invisible to ThreadSanitizer on Linux (linux.md §8): it would report
// every access to `ServerState` as a race. In a `-DCOURIER_TSAN` build (scripts/sanitize.sh
// thread) the lock tells TSan what it does, as Courier's own locks do (Courier's
// Support/ThreadSanitizer.swift); without the flag this is exactly the plain `withLock`.

#if COURIER_TSAN
@_silgen_name("__tsan_acquire")
func tsanAcquire(_ address: UnsafeRawPointer)

@_silgen_name("__tsan_release")
func tsanRelease(_ address: UnsafeRawPointer)
#endif

extension Mutex where Value: ~Copyable {
    /// `withLock`, seen by ThreadSanitizer in a `COURIER_TSAN` build: the mutex's address stands
    /// for the lock.
    // Transparent, not just inline-always: inlined before any optimization, so a build without
    // the flag compiles the call site exactly as the `withLock` it replaces.
    @_transparent
    borrowing func withAnnotatedLock<Result, Failure: Error>(
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
