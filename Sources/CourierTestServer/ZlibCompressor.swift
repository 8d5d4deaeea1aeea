import CZlib

/// Streaming zlib compression for the compressed routes: gzip (``Route/gzipped(_:)``,
/// ``Route/gzipBomb(gibibytes:)``) or the zlib wrapper (``Route/deflated(_:)``).
///
/// Deliberately the server's own code rather than anything from the client library:
/// a fixture that shared the client's compression code would agree with its bugs.
///
/// Not thread-safe: each response makes its own.
final class ZlibCompressor {
    /// The wrapper around the deflate data.
    enum Format {
        /// RFC 1952, for `Content-Encoding: gzip`.
        case gzip
        /// RFC 1950, which is what `Content-Encoding: deflate` means (RFC 9110 §8.4.1.2).
        case zlib
    }

    /// The most bytes handed to the output closure at once.
    static let chunkSize = 64 * 1024

    /// Heap-allocated because zlib keeps a pointer back to the `z_stream`: it must not move.
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableRawBufferPointer

    init(format: Format) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
        // 15 is the largest window; +16 asks for a gzip wrapper instead of a zlib one.
        let windowBits: Int32 = format == .gzip ? 15 + 16 : 15
        let status = czlib_deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY)
        precondition(status == Z_OK, "deflateInit2 failed with \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
        scratch.deallocate()
    }

    /// Compresses `input` (at most 4 GiB at once), handing output pieces to `output`.
    func compress(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try run(input, flush: Z_NO_FLUSH, into: output)
    }

    /// Flushes the rest and the trailer. The compressor cannot be used afterwards.
    func finish(into output: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: output)
    }

    /// ``TestServer/deterministicBytes(count:offset:)`` compressed, streamed from the
    /// pattern so the uncompressed body is never in memory.
    static func compressDeterministicBytes(
        count: Int, format: Format, into output: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        let compressor = ZlibCompressor(format: format)
        var offset = 0
        while offset < count {
            let length = min(count - offset, DeterministicPattern.blockSize)
            try DeterministicPattern.withBytes(offset: offset, count: length) {
                try compressor.compress($0, into: output)
            }
            offset += length
        }
        try compressor.finish(into: output)
    }

    private func run(
        _ input: UnsafeRawBufferPointer, flush: Int32, into output: (UnsafeRawBufferPointer) throws -> Void
    ) rethrows {
        precondition(input.count <= Int(UInt32.max), "zlib counts input in 32 bits")
        if let base = input.baseAddress {
            stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        }
        stream.pointee.avail_in = uInt(input.count)
        // zlib's idiom (zpipe.c): room left in the output buffer means all input is
        // consumed and, for Z_FINISH, the stream is complete.
        repeat {
            stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(scratch.count)
            let status = deflate(stream, flush)
            precondition(status != Z_STREAM_ERROR, "deflate state damaged")
            let produced = scratch.count - Int(stream.pointee.avail_out)
            if produced > 0 { try output(UnsafeRawBufferPointer(start: scratch.baseAddress, count: produced)) }
        } while stream.pointee.avail_out == 0
    }
}

@available(*, unavailable, message: "ZlibCompressor is used by one thread at a time")
extension ZlibCompressor: Sendable {}
