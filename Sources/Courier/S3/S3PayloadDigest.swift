import CZlib
import Glibc

import Foundation

/// The digests of an S3 request's body, worked out in one pass before it is sent: the SHA-256
/// that SigV4 signs (`x-amz-content-sha256`) and the checksum the service checks
/// (`x-amz-checksum-*`). A file body is read from disk a chunk at a time, never whole.
enum S3PayloadDigest {
    /// The body as the request holds it.
    enum Payload {
        case none
        case data(Data)
        /// Files and bytes in order (a body streamed from disk).
        case pieces([DiskBodyPiece])
        /// A stream read as it is sent: it cannot be read before.
        case stream

        init(_ config: borrowing RequestConfiguration) {
            if config.bodyStream != nil {
                self = .stream
            } else if let path = config.postBodyFilePath {
                self = .pieces([.file(path)])
            } else if config.shouldStreamPostDataFromDisk, !config.diskBody.isEmpty {
                self = .pieces(config.diskBody)
            } else if let body = config.postBody, !body.isEmpty {
                self = .data(body)
            } else {
                self = .none
            }
        }

        var canBeRead: Bool {
            if case .stream = self { return false }
            return true
        }
    }

    /// A file body's digests, and the file they are of: a retry whose file is unchanged (same
    /// path, size and modification time) does not read it again.
    struct FileDigest: Sendable, Equatable {
        let path: String
        let size: Int64
        let modified: Int64
        let sha256: String?
        let checksum: String?
        let algorithm: S3ChecksumAlgorithm?
    }

    struct Result {
        var sha256: String?
        var checksum: String?
        /// Set when a single file was read, to be kept for a retry.
        var file: FileDigest?
    }

    static func compute(
        _ payload: Payload, sha256: Bool, checksum: S3ChecksumAlgorithm?, cached: FileDigest?, url: URL
    ) throws(HTTPRequestError) -> Result {
        var identity: (path: String, size: Int64, modified: Int64)?
        if case .pieces(let pieces) = payload, pieces.count == 1, case .file(let path) = pieces[0] {
            var status = stat()
            if stat(path, &status) == 0 {
                identity = (path, Int64(status.st_size), Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec))
                if let cached, cached.path == path, cached.size == identity!.size, cached.modified == identity!.modified,
                    cached.algorithm == checksum, !sha256 || cached.sha256 != nil
                {
                    return Result(sha256: cached.sha256, checksum: cached.checksum, file: nil)
                }
            }
        }
        var digests = Accumulator(sha256: sha256, checksum: checksum)
        switch payload {
        case .none, .stream:
            break
        case .data(let data):
            data.withUnsafeBytes { digests.add($0) }
        case .pieces(let pieces):
            for piece in pieces {
                switch piece {
                case .data(let data): data.withUnsafeBytes { digests.add($0) }
                case .file(let path): try digests.addFile(at: path, url: url)
                case .fileRange(let path, let offset, let length):
                    try digests.addFile(at: path, from: offset, length: length, url: url)
                }
            }
        }
        var result = digests.finish()
        if let identity {
            result.file = FileDigest(
                path: identity.path, size: identity.size, modified: identity.modified, sha256: result.sha256,
                checksum: result.checksum, algorithm: checksum)
        }
        return result
    }

    /// The running digests.
    private struct Accumulator {
        let hasher: SHA256Hasher?
        let checksumHasher: SHA256Hasher?
        let algorithm: S3ChecksumAlgorithm?
        var crc: UInt32 = 0

        init(sha256: Bool, checksum: S3ChecksumAlgorithm?) {
            hasher = sha256 ? SHA256Hasher() : nil
            algorithm = checksum
            // A SHA-256 checksum is the same digest, base64 instead of hex: one hasher does both.
            checksumHasher = checksum == .sha256 && !sha256 ? SHA256Hasher() : nil
        }

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            hasher?.update(bytes)
            checksumHasher?.update(bytes)
            switch algorithm {
            case .crc32:
                // zlib takes a 32-bit length: a body in memory of 4 GiB or more goes in parts.
                var rest = bytes
                while !rest.isEmpty {
                    let part = UnsafeRawBufferPointer(rebasing: rest.prefix(1 << 30))
                    crc = UInt32(
                        CZlib.crc32(uLong(crc), part.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(part.count)))
                    rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(part.count))
                }
            case .crc32c:
                crc = CRC32C.update(crc, bytes)
            case .sha256, nil:
                break
            }
        }

        /// Adds the file at `path`, or `length` bytes of it from `start`, read a chunk at a time.
        mutating func addFile(
            at path: String, from start: Int64 = 0, length: Int64 = .max, url: URL
        ) throws(HTTPRequestError) {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Self.unreadable(path, errno: errno, url: url) }
            defer { Glibc.close(descriptor) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256Hasher.fileChunkSize, alignment: 16)
            defer { buffer.deallocate() }
            var done: Int64 = 0
            while done < length {
                let wanted = Int(min(Int64(buffer.count), length - done))
                let count = pread(descriptor, buffer.baseAddress, wanted, off_t(start + done))
                if count > 0 {
                    add(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                    done += Int64(count)
                } else if count == 0 {
                    return
                } else if errno != EINTR {
                    throw Self.unreadable(path, errno: errno, url: url)
                }
            }
        }

        func finish() -> Result {
            let digest = hasher?.finalize()
            var result = Result(sha256: digest.map(Digests.hex))
            switch algorithm {
            case .crc32, .crc32c:
                let bigEndian = [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
                result.checksum = Data(bigEndian).base64EncodedString()
            case .sha256:
                result.checksum = (digest ?? checksumHasher?.finalize()).map { Data($0).base64EncodedString() }
            case nil:
                break
            }
            return result
        }

        private static func unreadable(_ path: String, errno code: Int32, url: URL) -> HTTPRequestError {
            HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The body file \(path) cannot be read to sign it: \(String(cString: strerror(code)))", url: url,
                underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
        }
    }
}

/// CRC-32C (Castagnoli), S3's `crc32c` checksum, a byte at a time from a table: zlib has only
/// the IEEE polynomial, and libcrypto neither.
enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0x82F6_3B78 : value >> 1 }
        return value
    }

    /// `crc` (0 to start) carried over `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var value = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes { value = table[Int((value ^ UInt32(byte)) & 0xFF)] ^ (value >> 8) }
        }
        return ~value
    }
}
