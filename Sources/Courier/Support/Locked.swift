import CourierThreadSanitizer
import Synchronization

/// The one lock type Courier uses: a value guarded by a mutex.
///
/// The mutex is `Synchronization.Mutex` (a futex word) stored inline, so a `Locked` is one
/// allocation and taking it uncontended is one atomic compare-and-swap; a pthread mutex needed
/// an allocation of its own and a library call each way.
///
/// `@unchecked Sendable` because every read and write of `value` happens inside `withLock`,
/// which holds `mutex` for its whole duration. ThreadSanitizer cannot see a `Mutex` take and
/// leave its lock; in a `-DCOURIER_TSAN` build `guarding` tells it (CourierThreadSanitizer), with
/// this instance's address standing for the lock, and in any other build it adds nothing.
/// Never call user code, libcurl or `didChangeValue(forKey:)` from inside `withLock`.
///
/// Lock order. Where one lock is taken while another is held, it is always in this order, and
/// never the other way:
/// 1. a NetworkQueue's `idleSignal` (a thread waiting for the queue);
/// 2. a NetworkQueue's state;
/// 3. a request's state (the queue reads and marks the request it is about to start);
/// 4. leaf locks, under which no other lock is taken: the class settings, `KeepAliveLimits`,
///    the bandwidth meter and budget, the body buffer pool, the engine's inbox, a mailbox, a
///    `DownloadCache`'s settings and its cleared-paths registry, an `AWSSignatureV4`'s cached
///    signing key, a WebPageRequest's page settings and its `WebPageFetch`'s state, and
///    corelibs' own Operation locks (`isReady`, `dependencies`).
/// So a request never asks its queue anything while holding its own lock: it copies the queue
/// out and asks after.
final class Locked<Value>: @unchecked Sendable {
    // The mutex already makes every access exclusive; Swift's dynamic check would only repeat
    // it, on every lock of every request. Measured (callgrind, courier-bench get 1 KiB, 16 in
    // flight, (I(4000) - I(1000)) / 3000): without `@exclusivity(unchecked)` a small GET takes
    // ~120,900 instructions instead of ~115,500, 4.7% more, so it stays (DESIGN.md's 2% rule).
    @exclusivity(unchecked) private var value: Value
    private let mutex = Mutex<Void>(())

    init(_ value: consuming Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the guarded value.
    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try mutex.guarding(visibleToTSanAs: self) {
            #if COURIER_TSAN
            // A zero-sized value (`Locked(())`, a lock that only serializes) sits at field offset
            // 0, the object's header: TSan counted `&value` as a write to the metadata word that
            // every caller reads, unlocked, to find `mutex`, and reported a race (concurrent
            // PersistentCredentialStore saves). There is nothing to write back, so lend a copy.
            if MemoryLayout<Value>.size == 0 {
                var empty = value
                return try body(&empty)
            }
            #endif
            return try body(&value)
        }
    }

    /// A snapshot of the guarded value.
    var current: Value {
        withLock { $0 }
    }
}
