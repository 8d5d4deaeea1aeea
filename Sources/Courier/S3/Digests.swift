import CCrypto

import protocol Foundation.ContiguousBytes

/// SHA-256, HMAC-SHA256 and HMAC-SHA1 over bytes in memory, for the S3 signers.
///
/// Computed by OpenSSL's libcrypto, which libcurl already links, rather than written out here:
/// these are what every request's signature rests on, and libcrypto's are checked and fast. Only
/// functions that exist in every libcrypto since 1.1 are used (the `EVP_MD_CTX` ones, `HMAC`).
enum Digests {
    /// The length of a SHA-256 digest, in bytes.
    static let sha256Length = 32
    /// The length of a SHA-1 digest, in bytes.
    static let sha1Length = 20

    /// The SHA-256 digest of `bytes`.
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: sha256Length) { digest, count in
            emptySHA256.finish(appending: bytes, into: digest)
            count = sha256Length
        }
    }

    /// SHA-256 with nothing absorbed, the start every one-shot digest copies. OpenSSL 3 looks
    /// the algorithm up by name in its provider store on every `EVP_DigestInit_ex` (and so on
    /// every `EVP_Digest`); a copy of a context already set up does not: a sign's digest of its
    /// canonical request went from ~21,800 instructions to ~16,100 (callgrind), nearly all of
    /// what is left the hashing itself.
    static let emptySHA256 = SHA256State()

    /// The SHA-256 digest of `bytes` (a `[UInt8]`, `Data`, …).
    static func sha256(_ bytes: some ContiguousBytes) -> [UInt8] {
        bytes.withUnsafeBytes { sha256($0) }
    }

    /// The SHA-256 digest of `text`'s UTF-8.
    static func sha256(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { sha256(UnsafeRawBufferPointer($0)) }
    }

    /// HMAC-SHA256 of `message` (its UTF-8) under `key`.
    static func hmacSHA256(key: some ContiguousBytes, _ message: String) -> [UInt8] {
        hmac(EVP_sha256(), length: sha256Length, key: key, message)
    }

    /// HMAC-SHA1 of `message` (its UTF-8) under `key`: Signature Version 2's MAC.
    static func hmacSHA1(key: some ContiguousBytes, _ message: String) -> [UInt8] {
        hmac(EVP_sha1(), length: sha1Length, key: key, message)
    }

    /// `bytes` as lower-case hexadecimal, two digits a byte: how SigV4 writes every digest.
    static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[index * 2] = lowerHexDigits[Int(byte >> 4)]
                text[index * 2 + 1] = lowerHexDigits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    /// `bytes` as lower-case hexadecimal onto the end of `text`.
    static func appendHex(_ bytes: UnsafeBufferPointer<UInt8>, to text: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 * bytes.count) { hex in
            for (index, byte) in bytes.enumerated() {
                hex[2 * index] = lowerHexDigits[Int(byte >> 4)]
                hex[2 * index + 1] = lowerHexDigits[Int(byte & 0x0F)]
            }
            text.append(contentsOf: hex)
        }
    }

    /// The lower-case hex digits' ASCII codes, indexed by value.
    private static let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func hmac(
        _ algorithm: OpaquePointer?, length: Int, key: some ContiguousBytes, _ message: String
    ) -> [UInt8] {
        var message = message
        return message.withUTF8 { hmac(algorithm, length: length, key: key, UnsafeRawBufferPointer($0)) }
    }

    /// HMAC-SHA256 of `message`'s bytes under `key`, by OpenSSL's one-shot `HMAC()`: what a prepared
    /// `HMACSHA256Key` is checked against.
    static func hmacSHA256(key: some ContiguousBytes, bytes message: some ContiguousBytes) -> [UInt8] {
        message.withUnsafeBytes { hmac(EVP_sha256(), length: sha256Length, key: key, $0) }
    }

    private static func hmac(
        _ algorithm: OpaquePointer?, length: Int, key: some ContiguousBytes, _ message: UnsafeRawBufferPointer
    ) -> [UInt8] {
        key.withUnsafeBytes { key in
            [UInt8](unsafeUninitializedCapacity: length) { digest, count in
                // HMAC() takes the key's length as an int: a longer key (2 GiB) cannot be passed.
                precondition(key.count <= Int(Int32.max), "an HMAC key longer than 2 GiB")
                // An empty key is passed as a pointer to a byte HMAC() is told to read none of:
                // some libcrypto versions treat a null key as "keep the previous key".
                let empty: UInt8 = 0
                var produced: UInt32 = 0
                let result = withUnsafePointer(to: empty) { emptyKey in
                    HMAC(
                        algorithm, key.baseAddress ?? UnsafeRawPointer(emptyKey), Int32(key.count),
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, digest.baseAddress,
                        &produced)
                }
                precondition(result != nil && produced == UInt32(length), "libcrypto could not compute an HMAC")
                count = length
            }
        }
    }
}
