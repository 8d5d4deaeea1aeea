import CZlib
import Foundation

/// Compresses a body to gzip (RFC 1952) at zlib's default level, streaming: what
/// `shouldCompressRequestBody` sends with `Content-Encoding: gzip`.
///
/// Output goes to the caller in pieces of at most ``chunkSize`` bytes from one scratch
/// buffer, so memory stays flat however large the input is.
///
/// Not thread-safe: use it from one thread at a time. It never traps: it runs inside libcurl's
/// read and seek callbacks (`GzipBodyReader`), where a failure must fail the request instead.
final class Deflater {
    /// The most bytes handed to the output closure at once (64 KiB).
    static let chunkSize = 64 * 1024

    /// Heap-allocated because zlib keeps a pointer back to the `z_stream` and checks it
    /// on every call: the struct must never move.
    private let stream: UnsafeMutablePointer<z_stream>
    private let scratch: UnsafeMutableRawBufferPointer
    private var isFinished = false

    /// Nil when zlib cannot start (with these constant, valid arguments: out of memory).
    init?() {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        scratch = .allocate(byteCount: Self.chunkSize, alignment: 16)
        // 15 + 16: the largest window, with a gzip wrapper instead of a zlib one.
        let status = czlib_deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            scratch.deallocate()
            return nil
        }
    }

    /// What went wrong inside the deflater itself (not in the output closure).
    struct Failure: Error, CustomStringConvertible {
        let description: String
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
    /// Throws what `output` throws, or a ``Failure`` of the deflater's own (used after
    /// finishing, or zlib's state damaged).
    func compress(_ input: UnsafeRawBufferPointer, into output: (UnsafeRawBufferPointer) throws -> Void) throws {
        try run(input, flush: Z_NO_FLUSH, into: output)
    }

    /// Writes whatever zlib still holds and the gzip trailer (CRC and length). The
    /// deflater cannot be used afterwards.
    func finish(into output: (UnsafeRawBufferPointer) throws -> Void) throws {
        try run(UnsafeRawBufferPointer(start: nil, count: 0), flush: Z_FINISH, into: output)
        isFinished = true
    }

    /// Compresses a whole body in memory to one gzip member.
    static func gzip(_ data: Data) throws(Failure) -> Data {
        guard let deflater = Deflater() else { throw Failure(description: "zlib could not start compressing") }
        var result = Data()
        let append = { (chunk: UnsafeRawBufferPointer) in
            result.append(chunk.baseAddress!.assumingMemoryBound(to: UInt8.self), count: chunk.count)
        }
        do {
            try data.withUnsafeBytes { try deflater.compress($0, into: append) }
            try deflater.finish(into: append)
        } catch let failure as Failure {
            throw failure
        } catch {
            // `append` throws nothing.
            throw Failure(description: "\(error)")
        }
        return result
    }

    /// Feeds `input` in slices that fit zlib's 32-bit counters; `flush` applies to the last.
    private func run(
        _ input: UnsafeRawBufferPointer, flush: Int32, into output: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard !isFinished else { throw Failure(description: "the deflater was used after it finished") }
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
                guard status != Z_STREAM_ERROR else { throw Failure(description: "zlib's deflate state is damaged") }
                let produced = scratch.count - Int(stream.pointee.avail_out)
                if produced > 0 { try output(UnsafeRawBufferPointer(start: scratch.baseAddress, count: produced)) }
            } while stream.pointee.avail_out == 0
            rest = UnsafeRawBufferPointer(rebasing: rest[(slice - Int(stream.pointee.avail_in))...])
        } while !rest.isEmpty
    }
}

@available(*, unavailable, message: "Deflater is used by one thread at a time")
extension Deflater: Sendable {}
