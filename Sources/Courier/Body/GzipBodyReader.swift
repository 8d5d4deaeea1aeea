import Foundation

/// Compresses another body reader's bytes with gzip as they are sent
/// (`shouldCompressRequestBody`), so a compressed file or stream never sits whole anywhere.
/// Engine thread only.
final class GzipBodyReader: BodyReader {
    private let source: any BodyReader
    /// Nil when zlib could not start: reading then fails the request.
    private var deflater = Deflater()
    private var pending = Data()
    private var pendingOffset = 0
    private var sourceEnded = false
    private var finished = false
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)

    init(source: any BodyReader) {
        self.source = source
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyReadResult {
        do {
            return try readCompressed(into: buffer)
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
        return true
    }

    func close() {
        source.close()
    }
}

@available(*, unavailable, message: "GzipBodyReader is confined to the engine thread")
extension GzipBodyReader: Sendable {}
