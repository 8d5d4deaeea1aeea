import CZlib
import Foundation

/// Inflates a body sent with `Content-Encoding: gzip` or `deflate`, streaming, with a
/// bound on the total output.
///
/// Accepts every shape servers send: gzip (including several gzip members one after
/// another, as `cat a.gz b.gz` makes), zlib-wrapped deflate (what RFC 9110 calls
/// "deflate") and raw deflate (what many servers send as "deflate" anyway). The wrapper
/// is decided from the first two bytes, so input may be split anywhere, even between those.
///
/// Output goes to the caller in pieces of at most ``chunkSize`` bytes from one scratch
/// buffer, so memory stays flat however large the inflated body is; a caller that throws
/// each piece away can inflate a decompression bomb without growing at all, and the
/// `limit` stops it before it becomes a problem for callers that keep the output.
///
/// Not thread-safe: use it from one thread at a time.
final class Inflater {
    /// The most bytes handed to the output closure at once (64 KiB).
    static let chunkSize = 64 * 1024

    /// The most bytes this inflater will produce in total.
    let limit: Int64
    /// Bytes handed to the output closure so far.
    private(set) var inflatedCount: Int64 = 0

    /// How the compressed stream is wrapped, from its first two bytes.
    private enum Wrapper {
        /// gzip (RFC 1952): may be followed by further gzip members.
        case gzip
        /// zlib (RFC 1950): one stream, nothing after it.
        case zlib
        /// Bare deflate (RFC 1951): one stream, nothing after it.
        case raw
    }

    private enum State {
        /// Fewer than two bytes have arrived, so the wrapper is not known yet.
        case detecting
        /// Inside a stream (or gzip member).
        case inflating(Wrapper)
        /// A stream (or gzip member) has just ended; the input may end here.
        case streamEnded(Wrapper)
        /// ``finish()`` succeeded.
        case finished
        /// A failure was thrown; every later call throws it again, because the
        /// stream's position no longer matches what the caller has seen.
        case failed(InflateError)
    }

    private var state = State.detecting
    /// The first bytes, kept until there are two to decide the wrapper from.
    private var prefix: [UInt8] = []
    /// Heap-allocated because zlib keeps a pointer back to the `z_stream` and checks it
    /// on every call: the struct must never move.
    private let stream: UnsafeMutablePointer<z_stream>
    private var streamStarted = false
    private let scratch: UnsafeMutableRawBufferPointer

    /// - Parameter limit: the most bytes to produce; more makes the inflater throw
    ///   ``InflateError/exceedsLimit(_:)``. A negative limit counts as 0: the inflater runs
    ///   inside libcurl's write callback, where it must never trap.
    init(limit: Int64) {
        self.limit = max(0, limit)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
    }

    deinit {
        if streamStarted { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Inflates the next piece of compressed input, handing the output to `output` in
    /// pieces of at most ``chunkSize`` bytes (never empty ones). The pieces are valid only
    /// during the call.
    ///
    /// Untyped `throws` because `output`'s own errors pass through unchanged (for example
    /// a failed file write); the inflater's own failures are ``InflateError``. After any
    /// failure the inflater is spent and throws again on every call.
    func inflate(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch state {
        case .failed(let error): throw error
        case .finished: throw InflateError.corrupt("more data came after the end of the compressed stream")
        case .detecting, .inflating, .streamEnded: break
        }
        do {
            var rest = input
            if case .detecting = state {
                let taken = min(2 - prefix.count, rest.count)
                prefix.append(contentsOf: rest.prefix(taken))
                rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(taken))
                guard prefix.count == 2 else { return }
                try start(Self.wrapper(prefix[0], prefix[1]))
                try prefix.withUnsafeBytes { try feed($0, into: output) }
            }
            try feed(rest, into: output)
        } catch {
            let failure = error as? InflateError ?? .corrupt("an earlier output chunk was not delivered: \(error)")
            state = .failed(failure)
            throw error
        }
    }

    /// Declares the input complete.
    ///
    /// No input at all is fine (an empty body is empty, whatever its `Content-Encoding`
    /// says); otherwise the last stream must have ended.
    /// - Throws: ``InflateError/truncated`` if the input stopped inside a stream, or the
    ///   failure an earlier call threw.
    func finish() throws(InflateError) {
        switch state {
        case .failed(let error):
            throw error
        case .detecting where !prefix.isEmpty, .inflating:
            state = .failed(.truncated)
            throw .truncated
        case .detecting, .streamEnded, .finished:
            state = .finished
        }
    }

    /// Inflates a whole body in memory.
    /// - Throws: ``InflateError`` if `data` is corrupt, truncated, or inflates past `limit`.
    static func inflate(_ data: Data, limit: Int64) throws(InflateError) -> Data {
        let inflater = Inflater(limit: limit)
        var result = Data()
        do {
            try data.withUnsafeBytes { bytes in
                try inflater.inflate(bytes) { chunk in
                    result.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count)
                }
            }
        } catch {
            // Appending to Data cannot throw, so only the inflater's own errors get here.
            throw error as? InflateError ?? .corrupt("\(error)")
        }
        try inflater.finish()
        return result
    }

    // MARK: Driving zlib

    /// Gzip starts with the magic bytes 1f 8b. A zlib header has compression method 8 in
    /// the low nibble, a window of at most 32 KiB in the high one, and a check value that
    /// makes the first two bytes a multiple of 31. Raw deflate practically never looks
    /// like either: 1f would open a block of the reserved type, and a stored block with
    /// the zlib nibbles needs non-zero padding bits, which encoders never write.
    private static func wrapper(_ first: UInt8, _ second: UInt8) -> Wrapper {
        if first == 0x1F && second == 0x8B { return .gzip }
        if first & 0x0F == 8, first >> 4 <= 7, (UInt16(first) << 8 | UInt16(second)) % 31 == 0 { return .zlib }
        return .raw
    }

    private func start(_ wrapper: Wrapper) throws(InflateError) {
        // 15 + 32 lets zlib check and strip either a gzip or a zlib wrapper itself;
        // -15 means no wrapper at all.
        let status = czlib_inflateInit2(stream, wrapper == .raw ? -15 : 15 + 32)
        guard status == Z_OK else { throw .corrupt("zlib could not start inflating (error \(status))") }
        streamStarted = true
        state = .inflating(wrapper)
    }

    /// Feeds all of `input` to zlib, in slices that fit its 32-bit counters.
    private func feed(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var rest = input
        while !rest.isEmpty {
            if case .streamEnded(let wrapper) = state {
                // Only gzip defines what may follow a stream: another member (RFC 1952 §2.2).
                guard wrapper == .gzip else { throw InflateError.corrupt("data after the end of the deflate stream") }
                inflateReset(stream)
                state = .inflating(wrapper)
            }
            let slice = min(rest.count, Int(UInt32.max))
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: rest.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(slice)
            try drain(into: output)
            let consumed = slice - Int(stream.pointee.avail_in)
            rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
        }
    }

    /// Runs zlib on the current input until it is used up or the stream ends, emptying
    /// the scratch buffer into `output` each time it fills.
    private func drain(into output: (UnsafeRawBufferPointer) throws -> Void) throws {
        while true {
            stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let status = CZlib.inflate(stream, Z_NO_FLUSH)
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 {
                // Checked before handing out, so a caller never sees a byte past the limit.
                guard Int64(produced) <= limit - inflatedCount else { throw InflateError.exceedsLimit(limit) }
                inflatedCount += Int64(produced)
                try output(UnsafeRawBufferPointer(start: scratch.baseAddress, count: produced))
            }
            switch status {
            case Z_STREAM_END:
                if case .inflating(let wrapper) = state { state = .streamEnded(wrapper) }
                return
            case Z_OK:
                // A full scratch buffer may mean zlib has more output pending.
                if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 { return }
            case Z_BUF_ERROR:
                // No progress possible without more input: not an error for a stream.
                return
            case Z_NEED_DICT:
                throw InflateError.corrupt("the zlib stream needs a preset dictionary, which HTTP never supplies")
            case Z_MEM_ERROR:
                throw InflateError.corrupt("zlib ran out of memory")
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                throw InflateError.corrupt(reason)
            }
        }
    }
}

@available(*, unavailable, message: "Inflater is used by one thread at a time")
extension Inflater: Sendable {}
