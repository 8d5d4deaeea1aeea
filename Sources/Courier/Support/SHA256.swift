import struct Foundation.Data

/// SHA-256 for Courier's own uses: naming cache files after their URL (a name a server cannot
/// steer: two URLs meeting in one file would need a collision), Digest authentication's SHA-256
/// variants, and `courier get --checksum`. Computed by libcrypto, as the S3 signers' digests are
/// (`Digests`, `SHA256Hasher`): one implementation for all of them. Package-wide so that the
/// command-line tool checks downloads with it too.
package enum SHA256 {
    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ Digests.sha256(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        // A sequence without contiguous storage (a `String.UTF8View` of a bridged string, a
        // generated sequence) is fed in pieces, never copied whole.
        let hasher = SHA256Hasher()
        var piece = [UInt8]()
        piece.reserveCapacity(pieceSize)
        for byte in bytes {
            piece.append(byte)
            if piece.count == pieceSize {
                piece.withUnsafeBytes { hasher.update($0) }
                piece.removeAll(keepingCapacity: true)
            }
        }
        piece.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// The digest of `bytes` as 64 lowercase hexadecimal digits.
    package static func hexDigest(_ bytes: some Sequence<UInt8>) -> String {
        Digests.hex(digest(bytes))
    }

    /// The digest, as hex, of the pieces `nextPiece` hands over one at a time until it returns nil
    /// (a file read a chunk at a time, so that its size does not matter). Throws what it throws.
    package static func hexDigest(pieces nextPiece: () throws -> Data?) rethrows -> String {
        let hasher = SHA256Hasher()
        while let piece = try nextPiece() { piece.withUnsafeBytes { hasher.update($0) } }
        return Digests.hex(hasher.finalize())
    }

    /// How many bytes of a non-contiguous sequence are hashed at a time.
    private static let pieceSize = 16 * 1024
}
