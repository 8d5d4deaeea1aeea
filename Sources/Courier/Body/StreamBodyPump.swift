import Foundation

/// Reads a producer's `InputStream` on a reader thread of its own, ahead of the transfer, into a
/// bounded buffer the engine thread takes from. A stream whose `read` blocks until data arrives
/// (a pipe, a FIFO, a bound pair) blocks only the reader, never the engine.
///
/// `@unchecked Sendable`: `state` is guarded by its lock; `stream` is touched only by the reader
/// thread after `start()`; `wake` is set once.
final class StreamBodyPump: @unchecked Sendable {
    private struct State {
        var chunks: [Data] = []
        var buffered = 0
        var ended = false
        var failure: String?
        var consumerWaiting = false
        var stopped = false
    }

    private let state = Locked(State())
    private let space = DispatchSemaphore(value: 0)
    private let stream: InputStream
    /// Called (on the reader thread) when data or the end arrives for a consumer that found
    /// nothing: the engine unpauses the transfer.
    private let wake: @Sendable () -> Void
    private let capacity: Int

    static let chunkSize = 64 * 1024

    init(stream: InputStream, capacity: Int = 1024 * 1024, wake: @escaping @Sendable () -> Void) {
        self.stream = stream
        self.capacity = capacity
        self.wake = wake
    }

    func start() {
        Thread.startNamed("courier-body") { [self] in pump() }
    }

    /// Stops reading; the reader thread ends after its current `read`.
    func stop() {
        state.withLock { $0.stopped = true }
        space.signal()
    }

    enum Take {
        case bytes(Int)
        case end
        case empty
        case failed(String)
    }

    /// Engine thread: copies what is buffered into `buffer`.
    func take(into buffer: UnsafeMutableRawBufferPointer) -> Take {
        let (result, freedSpace) = state.withLock { state -> (Take, Bool) in
            var written = 0
            while written < buffer.count, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let count = min(buffer.count - written, chunk.count)
                chunk.withUnsafeBytes { bytes in
                    (buffer.baseAddress! + written).copyMemory(from: bytes.baseAddress!, byteCount: count)
                }
                written += count
                if count == chunk.count {
                    state.chunks.removeFirst()
                } else {
                    state.chunks[0] = chunk.subdata(in: count..<chunk.count)
                }
            }
            state.buffered -= written
            if written > 0 { return (.bytes(written), true) }
            if let failure = state.failure { return (.failed(failure), false) }
            if state.ended { return (.end, false) }
            state.consumerWaiting = true
            return (.empty, false)
        }
        if freedSpace { space.signal() }
        return result
    }

    private func pump() {
        // A stream may come open (makeBoundStreams): opening it again is not needed.
        if stream.streamStatus == .notOpen { stream.open() }
        defer { stream.close() }
        var scratch = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            if state.withLock({ $0.stopped }) { return }
            let count = stream.read(&scratch, maxLength: scratch.count)
            let (wakes, full) = state.withLock { state -> (Bool, Bool) in
                if count > 0 {
                    state.chunks.append(Data(scratch[0..<count]))
                    state.buffered += count
                } else if count == 0 {
                    state.ended = true
                } else {
                    // Not streamError: its getter traps in corelibs Foundation for some streams.
                    state.failure = "reading the stream failed (read returned \(count))"
                }
                let wakes = state.consumerWaiting
                state.consumerWaiting = false
                return (wakes, state.buffered >= capacity)
            }
            if wakes { wake() }
            if count <= 0 { return }
            if full {
                // Wait until the engine has taken something; stop() also wakes this.
                while state.withLock({ $0.buffered >= capacity && !$0.stopped }) { space.wait() }
            }
        }
    }
}
