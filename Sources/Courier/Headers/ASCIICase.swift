/// ASCII case-insensitive comparison of bytes, for header names and URL schemes: the one place
/// that folds case. It never allocates, because it runs for every header line and request.
enum ASCIICase {
    /// The byte with A–Z folded to a–z; every other byte as it is.
    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 {
        (byte >= 65 && byte <= 90) ? byte | 0x20 : byte
    }

    /// Whether `a` and `b` are the same bytes, ignoring ASCII case.
    @inline(__always)
    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] {
            if folded(a[index]) != folded(b[index]) { return false }
        }
        return true
    }

    /// Whether `bytes` begins with `prefix`, ignoring ASCII case.
    @inline(__always)
    static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
        let wanted = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard bytes.count >= wanted.count else { return false }
        return equal(UnsafeBufferPointer(rebasing: bytes[0..<wanted.count]), wanted)
    }
}

extension String {
    /// Whether the string begins with `prefix`, ignoring ASCII case ("HTTPS://" has "https:").
    func hasPrefixIgnoringASCIICase(_ prefix: StaticString) -> Bool {
        var text = self
        return text.withUTF8 { ASCIICase.hasPrefix($0, prefix) }
    }
}
