import Foundation

/// Compresses another body reader's bytes with gzip as they are sent
/// (`shouldCompressRequestBody`), so a compressed file or stream never sits whole anywhere.
/// One thread at a time: the engine's while it is sent, or the one measuring it
/// (`CompressedBody`).
final class GzipBodyReader: BodyReader {
    private let source: any BodyReader
    /// The gzipped length announced as the Content-Length (`CompressedBody`), if any: a body
    /// that makes more or fewer bytes changed since it was measured, and must not go out under
    /// a length that is no longer its own.
    private let expectedLength: Int64?
    private var produced: Int64 = 0
    /// Nil when zlib could not start: reading then fails the request.
    private var deflater = Deflater()
    private var pending = Data()
    private var pendingOffset = 0
    private var sourceEnded = false
    private var finished = false
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(source: any BodyReader, expectedLength: Int64? = nil) {
        self.source = source
        self.expectedLength = expectedLength
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyReadResult {
        do {
            let result = try readCompressed(into: buffer)
            guard let expectedLength, case .bytes(let count) = result else { return result }
            produced += Int64(count)
            if count == 0 ? produced != expectedLength : produced > expectedLength {
                return .fail(
                    HTTPRequestError(
                        type: .internalErrorWhileBuildingRequest,
                        message: "The body changed while it was being sent: gzipped, it is no longer the "
                            + "\(expectedLength) bytes announced"))
            }
            return result
        } catch {
            return .fail(
                HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest, message: "The body could not be gzipped: \(error)"))
        }
    }

    private func readCompressed(into buffer: UnsafeMutableRawBufferPointer) throws -> BodyReadResult {
        guard let deflater else { throw Deflater.Failure(description: "zlib could not start compressing") }
        while pendingOffset >= pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
            if finished { return .bytes(0) }
            if sourceEnded {
                try deflater.finish { pending.append(contentsOf: $0) }
                finished = true
                continue
            }
            let result = scratch.withUnsafeMutableBytes { source.read(into: $0) }
            switch result {
            case .bytes(0):
                sourceEnded = true
            case .bytes(let count):
                try scratch.withUnsafeBytes { bytes in
                    try deflater.compress(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) {
                        pending.append(contentsOf: $0)
                    }
                }
            case .pause, .fail:
                return result
            }
        }
        let count = min(buffer.count, pending.count - pendingOffset)
        pending.withUnsafeBytes { bytes in
            buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + pendingOffset, byteCount: count)
        }
        pendingOffset += count
        return .bytes(count)
    }

    func rewind() -> Bool {
        guard source.rewind(), let fresh = Deflater() else { return false }
        deflater = fresh
        pending.removeAll()
        pendingOffset = 0
        sourceEnded = false
        finished = false
        produced = 0
        return true
    }

    func close() {
        source.close()
    }
}

@available(*, unavailable, message: "GzipBodyReader is confined to the engine thread")
extension GzipBodyReader: Sendable {}
