import Foundation

/// A body's gzip form for `shouldCompressRequestBody`, worked out before it is sent so that
/// `postLength`, the Content-Length and accurate upload progress all give the size on the wire,
/// as ASI's did. A body wholly in memory is kept gzipped. A body with files is read once to learn
/// its gzipped length and compressed again as it is sent, so it never sits whole anywhere; the
/// same readers in the same order make the same bytes both times (zlib is deterministic for one
/// input, level and version), and `GzipBodyReader` fails the attempt if a file changed between.
struct CompressedBody {
    /// What the body was made of: its memory pieces, and each file's identity in place of its bytes.
    let source: [SourcePiece]
    let form: Form

    enum Form {
        /// The whole gzipped body, sent as it is.
        case data(Data)
        /// The gzipped length of a body with files.
        case length(Int64)
    }

    /// One piece of the body, as it was when it was compressed.
    enum SourcePiece: Equatable {
        case data(Data)
        /// A file, known by its device, inode, size and change times: any write to it or a file
        /// renamed over it changes one of them.
        case file(path: String, identity: [Int64])
    }

    /// Bytes on the wire.
    var length: Int64 {
        switch form {
        case .data(let data): Int64(data.count)
        case .length(let length): length
        }
    }

    /// Whether this was made from `segments` as they are now.
    func matches(_ segments: [BodySegment]) -> Bool {
        (try? Self.source(of: segments, url: nil)) == source
    }

    /// Compresses `segments`, reading every file through. Call it without the request's lock
    /// where possible: a large file takes a while.
    static func make(from segments: [BodySegment], url: URL) throws(HTTPRequestError) -> CompressedBody {
        // Taken before reading: a file changed meanwhile then no longer matches, and is
        // compressed again rather than sent under a stale length.
        let source = try source(of: segments, url: url)
        let isInMemory = segments.allSatisfy { if case .data = $0 { true } else { false } }
        let reader = GzipBodyReader(source: SegmentBodyReader(segments: segments, url: url))
        defer { reader.close() }
        var gzipped = Data()
        var length: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: Deflater.chunkSize)
        while true {
            switch buffer.withUnsafeMutableBytes({ reader.read(into: $0) }) {
            case .bytes(0):
                return CompressedBody(source: source, form: isInMemory ? .data(gzipped) : .length(length))
            case .bytes(let count):
                length += Int64(count)
                if isInMemory { gzipped.append(contentsOf: buffer[..<count]) }
            case .fail(let error):
                throw error.url == nil
                    ? HTTPRequestError(
                        type: error.type, message: error.message, url: url, underlyingError: error.underlyingError)
                    : error
            case .pause:
                // Memory and files never make a reader wait.
                throw HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest, message: "The body could not be gzipped", url: url)
            }
        }
    }

    /// The pieces `segments` are made of now; throws when a file cannot be examined.
    private static func source(of segments: [BodySegment], url: URL?) throws(HTTPRequestError) -> [SourcePiece] {
        var pieces: [SourcePiece] = []
        pieces.reserveCapacity(segments.count)
        for segment in segments {
            switch segment {
            case .data(let data):
                pieces.append(.data(data))
            case .file(let path, let offset, let length):
                var status = stat()
                guard stat(path, &status) == 0 else {
                    throw HTTPRequestError(
                        type: .internalErrorWhileBuildingRequest,
                        message: "The body file \(path) cannot be read: \(String(cString: strerror(errno)))", url: url)
                }
                let identity = [
                    Int64(truncatingIfNeeded: status.st_dev), Int64(truncatingIfNeeded: status.st_ino),
                    Int64(status.st_size), Int64(status.st_mtim.tv_sec), Int64(status.st_mtim.tv_nsec),
                    Int64(status.st_ctim.tv_sec), Int64(status.st_ctim.tv_nsec),
                ]
                pieces.append(.file(path: path, identity: identity + [offset, length]))
            }
        }
        return pieces
    }
}
