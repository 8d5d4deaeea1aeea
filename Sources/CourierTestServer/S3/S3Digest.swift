import CCrypto
import Foundation

/// SHA-256 and HMAC-SHA256 from libcrypto, for checking SigV4 signatures.
///
/// The test server's own calls, not Courier's: what verifies a client's signatures must not share
/// its code, only the (independently tested) primitives.
enum S3Digest {
    /// The SHA-256 of `bytes`, in lowercase hex.
    static func sha256Hex(_ bytes: some ContiguousBytes) -> String {
        hex(
            bytes.withUnsafeBytes { buffer in
                var digest = [UInt8](repeating: 0, count: 32)
                var length: UInt32 = 0
                let status = EVP_Digest(buffer.baseAddress, buffer.count, &digest, &length, EVP_sha256(), nil)
                precondition(status == 1, "libcrypto could not compute a SHA-256")
                return digest
            })
    }

    /// The SHA-256 of `text`'s UTF-8, in lowercase hex.
    static func sha256Hex(_ text: String) -> String {
        sha256Hex(Array(text.utf8))
    }

    /// HMAC-SHA256 of `message`'s UTF-8 under `key`.
    static func hmacSHA256(key: [UInt8], _ message: String) -> [UInt8] {
        let message = Array(message.utf8)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // A byte to point at for an empty key or message: a null key means "reuse the last one"
        // to some libcrypto versions.
        let keyBytes = key.isEmpty ? [0] : key
        let messageBytes: [UInt8] = message.isEmpty ? [0] : message
        let result = HMAC(EVP_sha256(), keyBytes, Int32(key.count), messageBytes, message.count, &digest, &length)
        precondition(result != nil, "libcrypto could not compute an HMAC")
        return digest
    }

    /// `bytes` in lowercase hex.
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
