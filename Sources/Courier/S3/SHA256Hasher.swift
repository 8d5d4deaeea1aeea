import CCrypto
import Glibc

import struct Foundation.POSIXError
import enum Foundation.POSIXErrorCode

/// A SHA-256 fed in pieces, for a body too big to hold: S3's signed payload is the SHA-256 of the
/// whole body, and a file body is read from disk a chunk at a time to get it.
///
/// Not thread-safe: one owner feeds it and takes the digest.
final class SHA256Hasher {
    /// libcrypto's digest context, owned by this hasher.
    private let context: OpaquePointer

    /// A hasher with no input yet.
    init() {
        // Both fail only when libcrypto cannot allocate; a hasher that silently hashed nothing
        // would sign a body the service then rejects.
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a digest") }
        self.context = context
        start()
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds `bytes` to the input.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        // The call stays out of the precondition, whose condition -Ounchecked never evaluates.
        let status = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
        precondition(status == 1, "libcrypto could not hash")
    }

    /// The digest of everything added since the last `finalize()` (or since `init()`); the hasher
    /// then starts again with no input.
    func finalize() -> [UInt8] {
        let digest = [UInt8](unsafeUninitializedCapacity: Digests.sha256Length) { digest, count in
            var length: UInt32 = 0
            let status = EVP_DigestFinal_ex(context, digest.baseAddress, &length)
            precondition(status == 1 && length == UInt32(Digests.sha256Length), "libcrypto could not hash")
            count = Digests.sha256Length
        }
        start()
        return digest
    }

    private func start() {
        let status = EVP_DigestInit_ex(context, EVP_sha256(), nil)
        precondition(status == 1, "libcrypto could not start a SHA-256")
    }

    /// How much of a file is read at a time: large enough that the read calls cost little next to
    /// the hashing, small enough that hashing a 1 GiB upload needs no more memory than this.
    static let fileChunkSize = 256 * 1024

    /// The lower-case hex SHA-256 of the file at `path`, read `chunkSize` bytes at a time (never
    /// all of it at once).
    /// - Throws: `internalErrorWhileBuildingRequest` when the file cannot be opened or read, as a
    ///   body file that cannot be read fails a request.
    static func hexDigest(
        ofFileAtPath path: String, chunkSize: Int = fileChunkSize
    ) throws(HTTPRequestError) -> String {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw unreadable(path, errno: errno) }
        defer { Glibc.close(descriptor) }
        let hasher = SHA256Hasher()
        switch FileDescriptorReading.readChunks(descriptor, size: chunkSize, hasher.update) {
        case .success: return Digests.hex(hasher.finalize())
        case .failure(let failure): throw unreadable(path, errno: failure.code)
        }
    }

    private static func unreadable(_ path: String, errno code: Int32) -> HTTPRequestError {
        HTTPRequestError(
            type: .internalErrorWhileBuildingRequest,
            message: "The body file \(path) cannot be read to hash it: \(String(cString: strerror(code)))",
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }
}

@available(*, unavailable, message: "a SHA256Hasher has one owner")
extension SHA256Hasher: Sendable {}
