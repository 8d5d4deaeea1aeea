import CZlib
import Foundation

/// Compresses a body to gzip (RFC 1952) at zlib's default level, streaming: what
/// `shouldCompressRequestBody` sends with `Content-Encoding: gzip`.
///
/// Output goes to the caller in pieces of at most ``chunkSize`` bytes from one scratch
/// buffer, so memory stays flat however large the input is.
///
/// Not thread-safe: use it from one thread at a time.
final class Deflater {
    /// The most bytes handed to the output closure at once (64 KiB).
    static let chunkSize = 64 * 1024

    /// Heap-allocated because zlib keeps a pointer back to the `z_stream` and checks it
    /// on every call: the struct must never move.
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableRawBufferPointer
    private var isFinished = false

    init() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
        // 15 + 16: the largest window, with a gzip wrapper instead of a zlib one. With
        // these constant, valid arguments the only possible failure is running out of
        // memory, which Swift treats as fatal everywhere else too.
        let status = czlib_deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        precondition(status == Z_OK, "zlib could not start compressing (error \(status))")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Compresses the next piece of input. zlib buffers internally, so output may come
    /// later than the input it belongs to; ``finish(into:)`` flushes it.
    ///
    /// The pieces handed to `output` are never empty and are valid only during the call.
    /// The deflater's own failures are programming errors (use after finishing), so this
    /// throws only what `output` throws.
    func compress(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try run(input, flush: Z_NO_FLUSH, into: output)
    }

    /// Writes whatever zlib still holds and the gzip trailer (CRC and length). The
    /// deflater cannot be used afterwards.
    func finish(into output: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: output)
        isFinished = true
    }

    /// Compresses a whole body in memory to one gzip member.
    static func gzip(_ data: Data) -> Data {
        let deflater = Deflater()
        var result = Data()
        let append = { (chunk: UnsafeRawBufferPointer) in
            result.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count)
        }
        data.withUnsafeBytes { deflater.compress($0, into: append) }
        deflater.finish(into: append)
        return result
    }

    /// Feeds `input` in slices that fit zlib's 32-bit counters; `flush` applies to the last.
    private func run(
        _ input: UnsafeRawBufferPointer, flush: Int32, into output: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        precondition(!isFinished, "Deflater used after finish(into:)")
        var rest = input
        repeat {
            let slice = min(rest.count, Int(UInt32.max))
            if slice > 0 {
                stream.pointee.next_in = UnsafeMutablePointer(
                    mutating: rest.baseAddress!.assumingMemoryBound(to: Bytef.self))
            }
            stream.pointee.avail_in = uInt(slice)
            let mode = slice == rest.count ? flush : Z_NO_FLUSH
            // zlib's own idiom (zpipe.c): call until it leaves room in the output buffer,
            // which means it has consumed all input and, for Z_FINISH, written the end.
            repeat {
                stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(scratch.count)
                let status = deflate(stream, mode)
                precondition(status != Z_STREAM_ERROR, "zlib's deflate state is damaged")
                let produced = scratch.count - Int(stream.pointee.avail_out)
                if produced > 0 { try output(UnsafeRawBufferPointer(start: scratch.baseAddress, count: produced)) }
            } while stream.pointee.avail_out == 0
            rest = UnsafeRawBufferPointer(rebasing: rest[(slice - Int(stream.pointee.avail_in))...])
        } while !rest.isEmpty
    }
}

@available(*, unavailable, message: "Deflater is used by one thread at a time")
extension Deflater: Sendable {}
