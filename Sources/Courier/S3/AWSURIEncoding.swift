/// AWS's percent-encoding (Signature Version 4's `UriEncode`) and the decoding that comes before it.
///
/// Every byte but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) becomes `%XY` with
/// upper-case hex; a path keeps its `/`. A URL can spell one key many ways (`+` or `%2B`, `@` or
/// `%40`, `%c3%a9` or `%C3%A9`), so the signers decode what the URL says and encode it again this
/// one way: two spellings of a key then sign alike (Soto's SignatureDoesNotMatch on keys with `+`
/// and `@`, soto#438 and #601, came from signing the URL's spelling).
enum AWSURIEncoding {
    /// `bytes` encoded; `/` kept when `keepingSlash` (a path), else `%2F` (a query name or value).
    static func encode(_ bytes: some Sequence<UInt8>, keepingSlash: Bool = false) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(upperHexDigits[Int(byte >> 4)])
                encoded.append(upperHexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// `text`'s UTF-8 encoded; `/` kept when `keepingSlash`.
    static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        encode(text.utf8, keepingSlash: keepingSlash)
    }

    /// The bytes a percent-encoded string stands for. `%XY` (either case of hex) becomes its byte;
    /// a `%` without two hex digits after it is a literal `%`. `+` stays `+`: in a URL (RFC 3986)
    /// it is a plus sign, and only HTML forms read it as a space.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(text.count)
        var index = text.startIndex
        while index != text.endIndex {
            let byte = text[index]
            text.formIndex(after: &index)
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                continue
            }
            var digits = index
            if digits != text.endIndex, let high = hexValue(text[digits]) {
                text.formIndex(after: &digits)
                if digits != text.endIndex, let low = hexValue(text[digits]) {
                    text.formIndex(after: &digits)
                    decoded.append(high << 4 | low)
                    index = digits
                    continue
                }
            }
            decoded.append(byte)
        }
        return decoded
    }

    /// A path as SigV4 signs it for S3: decoded, then each segment encoded once with `/` kept.
    /// Not normalised (`a//b/./c` stays as it is: S3 keys may contain those); an empty path is
    /// `/`. A `%2F` inside a segment becomes a `/`, as S3 itself decodes it to one.
    static func canonicalPath(percentEncoded path: String) -> String {
        guard !path.isEmpty else { return "/" }
        let canonical = encode(decode(path.utf8), keepingSlash: true)
        return canonical.utf8.first == UInt8(ascii: "/") ? canonical : "/" + canonical
    }

    /// One query parameter, its name and value decoded to bytes (which need not be UTF-8).
    struct QueryParameter {
        var name: [UInt8]
        var value: [UInt8]
        /// True for a name with no `=` after it (`?acl`); SigV4 signs it as `acl=` all the same.
        var isBare = false

        /// The name, encoded.
        var encodedName: String { AWSURIEncoding.encode(name) }
        /// The value, encoded.
        var encodedValue: String { AWSURIEncoding.encode(value) }
    }

    /// A percent-encoded query's parameters, in order. A bare name (`?acl`) has an empty value;
    /// empty pieces (`a=1&&b=2`, a trailing `&`) are no parameters.
    static func parameters(percentEncodedQuery query: String?) -> [QueryParameter] {
        guard let query, !query.isEmpty else { return [] }
        return query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { piece in
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else {
                return QueryParameter(name: decode(piece), value: [], isBare: true)
            }
            return QueryParameter(name: decode(piece[..<equals]), value: decode(piece[piece.index(after: equals)...]))
        }
    }

    /// SigV4's canonical query string: `name=value` pairs, already encoded, sorted by name and
    /// then by value (byte order, as AWS compares them), joined with `&`.
    static func canonicalQuery(_ pairs: [(name: String, value: String)]) -> String {
        pairs.sorted { left, right in
            if left.name != right.name { return left.name.utf8.lexicographicallyPrecedes(right.name.utf8) }
            return left.value.utf8.lexicographicallyPrecedes(right.value.utf8)
        }
        .map { $0.name + "=" + $0.value }
        .joined(separator: "&")
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// The upper-case hex digits' ASCII codes, indexed by value: SigV4 requires upper case.
    private static let upperHexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}
