import CZlib

/// Inflates a gzip or zlib-wrapped request body for ``Route/gunzipEcho``, bounded and
/// streaming: output goes out in pieces of at most 64 KiB, so a body that inflates to
/// gigabytes never needs gigabytes of memory.
///
/// Concatenated gzip members (as `cat a.gz b.gz` makes) inflate to their concatenation,
/// as `gzip -d` does. Like ``ZlibCompressor``, independent of the client library's code.
enum ZlibDecompressor {
    /// Why a body could not be inflated.
    enum Failure: Error {
        /// Not valid gzip or zlib data; zlib's reason.
        case corrupt(String)
        /// It inflates to more than the limit.
        case tooLarge(limit: Int)
        /// The body ended inside the compressed stream.
        case truncated
    }

    /// Inflates `input`, handing the output to `output` in pieces.
    /// - Parameter limit: the most output bytes allowed.
    static func inflate(
        _ input: UnsafeRawBufferPointer, limit: Int, into output: (UnsafeRawBufferPointer) -> Void
    ) throws(Failure) {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer {
            stream.deallocate()
            scratch.deallocate()
        }
        // 15 + 32: zlib detects and checks a gzip or a zlib wrapper by itself.
        guard czlib_inflateInit2(stream, 15 + 32) == Z_OK else { throw .corrupt("inflateInit2 failed") }
        defer { inflateEnd(stream) }
        var rest = input
        var produced = 0
        while !rest.isEmpty {
            let slice = min(rest.count, Int(UInt32.max))
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: rest.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.pointee.avail_in = uInt(slice)
            var status = Z_OK
            repeat {
                stream.pointee.next_out = scratch.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(scratch.count)
                status = CZlib.inflate(stream, Z_NO_FLUSH)
                let count = scratch.count - Int(stream.pointee.avail_out)
                produced += count
                guard produced <= limit else { throw .tooLarge(limit: limit) }
                if count > 0 { output(UnsafeRawBufferPointer(start: scratch.baseAddress, count: count)) }
                switch status {
                case Z_OK, Z_BUF_ERROR, Z_STREAM_END: break
                case Z_NEED_DICT: throw .corrupt("needs a preset dictionary")
                default: throw .corrupt(stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)")
                }
            } while status == Z_OK && (stream.pointee.avail_out == 0 || stream.pointee.avail_in > 0)
            rest = UnsafeRawBufferPointer(rebasing: rest[(slice - Int(stream.pointee.avail_in))...])
            if status == Z_STREAM_END {
                // Another gzip member may follow; if nothing does, the body is complete.
                if rest.isEmpty { return }
                inflateReset(stream)
            }
        }
        // Ran out of input without reaching the end of the stream (or got no input at all).
        throw .truncated
    }
}
