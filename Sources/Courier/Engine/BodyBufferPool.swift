import Foundation

/// Memory for response bodies whose Content-Length is known and large, kept for reuse after the
/// `Data` that held a body is gone.
///
/// Without it each such body was a fresh malloc on the engine thread, freed on whichever thread
/// let the response go. glibc serves those two threads from different arenas, so every free
/// took the engine arena's lock while libcurl's own allocations held it (futex waits on both
/// threads), and freeing 64 KiB or more also trimmed the arena, so the next body page-faulted
/// its memory back in. Taking a buffer here is a lock and a pop; giving it back is a lock and
/// a push, from any thread.
///
/// A body's buffer comes in one of a few sizes (each at most 1.5× the one below), so a kept
/// response may hold up to half as much memory again as its body. The pool keeps at most
/// `retainedBytesLimit` of idle buffers; past that, returned buffers are freed.
final class BodyBufferPool: Sendable {
    // Sendable: its one stored property is a `Locked`.
    static let shared = BodyBufferPool()

    /// The buffer sizes, smallest first, each at most 1.5× the one below. The smallest is for
    /// bodies just over `Transfer.smallestBodyReservation`, the least the pool is asked for.
    static let sizes: [Int] = [24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096]
        .map { $0 << 10 }
    /// Bodies larger than this get memory of their own.
    static let largestBody = sizes[sizes.count - 1]
    /// Idle memory the pool may keep.
    static let retainedBytesLimit = 8 << 20
    /// Bytes before each buffer's body: its size class, so a returned buffer finds its list.
    private static let headerSize = 16

    private struct Shelves {
        var buffers: [[UnsafeMutableRawPointer]] = Array(repeating: [], count: BodyBufferPool.sizes.count)
        var retainedBytes = 0
    }
    // The memory a shelved pointer points to belongs to nobody until `take` hands it out.
    private let shelves = Locked(Shelves())

    /// A buffer with room for at least `length` bytes, or nil when the length is out of the
    /// pool's range.
    func take(atLeast length: Int) -> BodyBuffer? {
        guard length > 0, length <= Self.largestBody,
            let sizeClass = Self.sizes.firstIndex(where: { $0 >= length })
        else { return nil }
        let capacity = Self.sizes[sizeClass]
        let reused = shelves.withLock { shelves -> UnsafeMutableRawPointer? in
            guard let base = shelves.buffers[sizeClass].popLast() else { return nil }
            shelves.retainedBytes -= capacity
            return base
        }
        let base: UnsafeMutableRawPointer
        if let reused {
            base = reused
        } else {
            guard let fresh = malloc(Self.headerSize + capacity) else { return nil }
            fresh.storeBytes(of: sizeClass, as: Int.self)
            base = fresh
        }
        return BodyBuffer(start: base + Self.headerSize, capacity: capacity)
    }

    /// Takes back a buffer `take` gave out, given the start of its body.
    func recycle(_ start: UnsafeMutableRawPointer) {
        let base = start - Self.headerSize
        let sizeClass = base.load(as: Int.self)
        let capacity = Self.sizes[sizeClass]
        let kept = shelves.withLock { shelves -> Bool in
            guard shelves.retainedBytes + capacity <= Self.retainedBytesLimit else { return false }
            shelves.buffers[sizeClass].append(base)
            shelves.retainedBytes += capacity
            return true
        }
        if !kept { free(base) }
    }
}

/// A pooled buffer a transfer fills with one body. Engine thread only, until `data()` or
/// `recycle()` hands the memory on.
struct BodyBuffer {
    let start: UnsafeMutableRawPointer
    let capacity: Int
    var count = 0

    init(start: UnsafeMutableRawPointer, capacity: Int) {
        self.start = start
        self.capacity = capacity
    }

    /// Appends `bytes`; false, with nothing copied, when they do not fit.
    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count <= capacity - count else { return false }
        if let source = bytes.baseAddress { (start + count).copyMemory(from: source, byteCount: bytes.count) }
        count += bytes.count
        return true
    }

    /// The body as `Data` that returns this memory to the pool when the last copy of it goes.
    func data() -> Data {
        if count == 0 {
            recycle()
            return Data()
        }
        // The deallocator captures nothing, so wrapping allocates only Data's own storage.
        return Data(
            bytesNoCopy: start, count: count,
            deallocator: .custom { start, _ in BodyBufferPool.shared.recycle(start) })
    }

    /// Gives the memory back unused.
    func recycle() { BodyBufferPool.shared.recycle(start) }
}
