import protocol Foundation.ContiguousBytes

/// An HMAC-SHA256 key made ready once for many messages: RFC 2104's HMAC(K, m) is
/// H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ m)), and both padded key blocks are absorbed here, so each MAC
/// only continues two SHA-256 states (`SHA256State`).
///
/// For the day's SigV4 signing key, which signs every request of the day, and for the four steps
/// that derive it. OpenSSL 3's one-shot `HMAC()` fetches the MAC and the digest by name and
/// absorbs both key blocks on every call: one MAC of a string to sign took ~24,800 instructions
/// (callgrind), ~10,300 here, nearly all of it the SHA-256 blocks themselves (under valgrind,
/// without the CPU's SHA instructions).
final class HMACSHA256Key: Sendable {
    /// SHA-256's block, the length the key is padded (or hashed down) to.
    static let blockLength = 64

    private let inner: SHA256State
    private let outer: SHA256State

    /// A key of any length (a `[UInt8]`, a previous MAC, …); one longer than a block is hashed
    /// first, as RFC 2104 says.
    init(_ key: some ContiguousBytes) {
        let block = key.withUnsafeBytes { key in
            var block = [UInt8](repeating: 0, count: Self.blockLength)
            if key.count > Self.blockLength {
                block.replaceSubrange(0..<Digests.sha256Length, with: Digests.sha256(key))
            } else {
                block.replaceSubrange(0..<key.count, with: key)
            }
            return block
        }
        inner = block.map { $0 ^ 0x36 }.withUnsafeBytes { SHA256State(continuing: Digests.emptySHA256, absorbing: $0) }
        outer = block.map { $0 ^ 0x5C }.withUnsafeBytes { SHA256State(continuing: Digests.emptySHA256, absorbing: $0) }
    }

    /// The MAC of `message` under this key, written to `mac`'s first `Digests.sha256Length` bytes.
    func authenticationCode(of message: UnsafeRawBufferPointer, into mac: UnsafeMutableBufferPointer<UInt8>) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Digests.sha256Length) { innerDigest in
            inner.finish(appending: message, into: innerDigest)
            outer.finish(appending: UnsafeRawBufferPointer(innerDigest), into: mac)
        }
    }

    /// The MAC of `message` under this key.
    func authenticationCode(of message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Digests.sha256Length) { mac, count in
            authenticationCode(of: message, into: mac)
            count = Digests.sha256Length
        }
    }

    /// The MAC of `message`'s UTF-8 under this key.
    func authenticationCode(of message: String) -> [UInt8] {
        var message = message
        return message.withUTF8 { authenticationCode(of: UnsafeRawBufferPointer($0)) }
    }
}
