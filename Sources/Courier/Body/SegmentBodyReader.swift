import Foundation

/// Reads memory and file segments in order, files with `pread` a buffer at a time, so a body of
/// any size streams from disk with flat memory. One thread at a time: the engine's while it is
/// sent, or the one measuring its gzipped size (`CompressedBody`).
final class SegmentBodyReader: BodyReader {
    private let segments: [BodySegment]
    private var index = 0
    private var offset: Int64 = 0
    private var descriptor: Int32 = -1
    private let url: URL?

    init(segments: [BodySegment], url: URL?) {
        self.segments = segments
        self.url = url
    }

    deinit {
        close()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> BodyReadResult {
        var written = 0
        while written < buffer.count, index < segments.count {
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[written...])
            switch segments[index] {
            case .data(let data):
                let count = min(target.count, data.count - Int(offset))
                data.withUnsafeBytes { bytes in
                    target.baseAddress!.copyMemory(from: bytes.baseAddress! + Int(offset), byteCount: count)
                }
                written += count
                offset += Int64(count)
                if offset >= Int64(data.count) { advance() }
            case .file(let path, let start, let length):
                if descriptor < 0 {
                    descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { return .fail(failure("open", path)) }
                }
                let wanted = min(Int64(target.count), length - offset)
                guard wanted > 0 else {
                    advance()
                    continue
                }
                let count = pread(descriptor, target.baseAddress!, Int(wanted), off_t(start + offset))
                if count < 0 {
                    if errno == EINTR { continue }
                    return .fail(failure("read", path))
                }
                guard count > 0 else {
                    return .fail(
                        HTTPRequestError(
                            type: .internalErrorWhileBuildingRequest,
                            message: "The body file \(path) became shorter while it was being sent", url: url))
                }
                written += count
                offset += Int64(count)
                if offset >= length { advance() }
            }
        }
        return .bytes(written)
    }

    func rewind() -> Bool {
        closeFile()
        index = 0
        offset = 0
        return true
    }

    func close() {
        closeFile()
    }

    private func advance() {
        closeFile()
        index += 1
        offset = 0
    }

    private func closeFile() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    private func failure(_ operation: String, _ path: String) -> HTTPRequestError {
        HTTPRequestError(
            type: .internalErrorWhileBuildingRequest,
            message: "Could not \(operation) the body file \(path): \(String(cString: strerror(errno)))", url: url)
    }
}

@available(*, unavailable, message: "SegmentBodyReader is confined to the engine thread")
extension SegmentBodyReader: Sendable {}
