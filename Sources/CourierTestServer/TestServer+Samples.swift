import Foundation

extension TestServer {
    /// The bytes ``Route/bytes(_:)`` and ``Route/chunked(_:)`` serve, so tests can
    /// compute the expected body: byte `i` is `UInt8((offset + i) % 251)`.
    ///
    /// - Parameters:
    ///   - count: how many bytes (non-negative).
    ///   - offset: position of the first byte in the stream (non-negative), e.g. for
    ///     checking a range request or the tail of a resumed download.
    public static func deterministicBytes(count: Int, offset: Int = 0) -> Data {
        precondition(count >= 0 && offset >= 0, "count and offset must be non-negative")
        var data = Data(capacity: count)
        var position = offset
        while data.count < count {
            let length = min(count - data.count, DeterministicPattern.blockSize)
            DeterministicPattern.withBytes(offset: position, count: length) { data.append(contentsOf: $0) }
            position += length
        }
        return data
    }

    /// The text ``Route/charset(_:)`` serves for a charset name (matched
    /// case-insensitively, ignoring `-` and `_`):
    ///
    /// | name | text |
    /// | --- | --- |
    /// | `UTF-8` | `Grüße, café — 日本語テキスト` |
    /// | `UTF-16` (big-endian with BOM), `UTF-16BE`, `UTF-16LE` (no BOM) | `Grüße, café — 日本語テキスト` |
    /// | `ISO-8859-1` (also `latin1`) | `Grüße, café` |
    /// | `Shift_JIS` (also `sjis`) | `日本語テキスト` |
    /// | `US-ASCII` (also `ascii`) | `plain ascii` |
    /// | nil (`/charset/none`: no charset parameter; ISO-8859-1 bytes) | `Grüße, café` |
    /// | anything else (labelled as asked, sent as UTF-8) | `Grüße, café — 日本語テキスト` |
    public static func charsetSampleText(for name: String?) -> String {
        switch SampleCharset(name) {
        case .utf8, .utf16, .utf16BigEndian, .utf16LittleEndian, .unknown: return fullSample
        case .latin1, .none: return "Grüße, café"
        case .shiftJIS: return "日本語テキスト"
        case .ascii: return "plain ascii"
        }
    }

    /// The exact body bytes ``Route/charset(_:)`` serves for a charset name: the
    /// ``charsetSampleText(for:)`` text encoded in that charset.
    public static func charsetSampleBody(for name: String?) -> Data {
        let text = charsetSampleText(for: name)
        switch SampleCharset(name) {
        case .utf8, .unknown, .ascii:
            return Data(text.utf8)
        case .latin1, .none:
            // Every scalar of this sample is below U+0100, so each maps to one byte.
            return Data(text.unicodeScalars.map { UInt8($0.value) })
        case .shiftJIS:
            // Spelled out rather than converted, so the body does not depend on which
            // legacy encodings the platform's Foundation happens to support.
            return Data([0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA, 0x83, 0x65, 0x83, 0x4C, 0x83, 0x58, 0x83, 0x67])
        case .utf16:
            // The BOM makes the byte order explicit; big-endian is the RFC 2781 default.
            return Data([0xFE, 0xFF]) + utf16Bytes(text, bigEndian: true)
        case .utf16BigEndian:
            return utf16Bytes(text, bigEndian: true)
        case .utf16LittleEndian:
            return utf16Bytes(text, bigEndian: false)
        }
    }

    private static let fullSample = "Grüße, café — 日本語テキスト"

    private static func utf16Bytes(_ text: String, bigEndian: Bool) -> Data {
        Data(
            text.utf16.flatMap { unit in
                bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            })
    }
}
