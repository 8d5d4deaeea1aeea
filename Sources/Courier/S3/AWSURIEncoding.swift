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
        append(bytes, keepingSlash: keepingSlash, to: &encoded)
        return String(decoding: encoded, as: UTF8.self)
    }

    /// `bytes` encoded onto the end of `encoded`; `/` kept when `keepingSlash`.
    static func append(_ bytes: some Sequence<UInt8>, keepingSlash: Bool = false, to encoded: inout [UInt8]) {
        for byte in bytes {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(upperHexDigits[Int(byte >> 4)])
                encoded.append(upperHexDigits[Int(byte & 0x0F)])
            }
        }
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
        while index != text.endIndex { decoded.append(decodedByte(text, at: &index)) }
        return decoded
    }

    /// The byte `text` stands for at `index` (`%XY` or the byte itself), `index` moved past it.
    private static func decodedByte<Text: Collection<UInt8>>(_ text: Text, at index: inout Text.Index) -> UInt8 {
        let byte = text[index]
        text.formIndex(after: &index)
        guard byte == UInt8(ascii: "%") else { return byte }
        var digits = index
        if digits != text.endIndex, let high = hexValue(text[digits]) {
            text.formIndex(after: &digits)
            if digits != text.endIndex, let low = hexValue(text[digits]) {
                text.formIndex(after: &digits)
                index = digits
                return high << 4 | low
            }
        }
        return byte
    }

    /// A path as SigV4 signs it for S3: decoded, then each segment encoded once with `/` kept.
    /// Not normalised (`a//b/./c` stays as it is: S3 keys may contain those); an empty path is
    /// `/`. A `%2F` inside a segment becomes a `/`, as S3 itself decodes it to one.
    static func canonicalPath(percentEncoded path: String) -> String {
        String(decoding: canonicalPath(percentEncoded: path.utf8), as: UTF8.self)
    }

    /// `canonicalPath(percentEncoded:)` of a path's bytes, as bytes: decoded and encoded again in
    /// one pass, with no decoded copy in between.
    static func canonicalPath(percentEncoded path: some Collection<UInt8>) -> [UInt8] {
        guard !path.isEmpty else { return [UInt8(ascii: "/")] }
        var canonical: [UInt8] = []
        canonical.reserveCapacity(path.count + 8)
        // Most keys need no encoding and have nothing to decode: copied whole (~1,100 instructions
        // fewer a sign for a 48-byte path than a byte at a time, callgrind).
        if path.allSatisfy({ isUnreserved($0) || $0 == UInt8(ascii: "/") }) {
            if path.first != UInt8(ascii: "/") { canonical.append(UInt8(ascii: "/")) }
            canonical += path
            return canonical
        }
        var index = path.startIndex
        var isFirst = true
        while index != path.endIndex {
            let byte = decodedByte(path, at: &index)
            if isFirst, byte != UInt8(ascii: "/") { canonical.append(UInt8(ascii: "/")) }
            isFirst = false
            append(CollectionOfOne(byte), keepingSlash: true, to: &canonical)
        }
        return canonical
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
        /// The name and the value, each encoded, as bytes.
        var encoded: (name: [UInt8], value: [UInt8]) {
            var pair: (name: [UInt8], value: [UInt8]) = ([], [])
            AWSURIEncoding.append(name, to: &pair.name)
            AWSURIEncoding.append(value, to: &pair.value)
            return pair
        }
    }

    /// A percent-encoded query's parameters, in order. A bare name (`?acl`) has an empty value;
    /// empty pieces (`a=1&&b=2`, a trailing `&`) are no parameters.
    static func parameters(percentEncodedQuery query: String?) -> [QueryParameter] {
        guard let query else { return [] }
        return parameters(percentEncodedQuery: query.utf8)
    }

    /// `parameters(percentEncodedQuery:)` of a query's bytes.
    static func parameters(percentEncodedQuery query: some Collection<UInt8>) -> [QueryParameter] {
        guard !query.isEmpty else { return [] }
        return query.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { piece in
            guard let equals = piece.firstIndex(of: UInt8(ascii: "=")) else {
                return QueryParameter(name: decode(piece), value: [], isBare: true)
            }
            return QueryParameter(name: decode(piece[..<equals]), value: decode(piece[piece.index(after: equals)...]))
        }
    }

    /// SigV4's canonical query string: `name=value` pairs, already encoded, sorted by name and
    /// then by value (byte order, as AWS compares them), joined with `&`.
    static func canonicalQuery(_ pairs: [(name: String, value: String)]) -> String {
        var query: [UInt8] = []
        appendCanonicalQuery(pairs.map { (Array($0.name.utf8), Array($0.value.utf8)) }, to: &query)
        return String(decoding: query, as: UTF8.self)
    }

    /// `canonicalQuery` of pairs already encoded as bytes, onto the end of `query`.
    static func appendCanonicalQuery(_ pairs: [(name: [UInt8], value: [UInt8])], to query: inout [UInt8]) {
        let sorted = pairs.sorted { left, right in
            if left.name != right.name { return left.name.lexicographicallyPrecedes(right.name) }
            return left.value.lexicographicallyPrecedes(right.value)
        }
        for (index, pair) in sorted.enumerated() {
            if index > 0 { query.append(UInt8(ascii: "&")) }
            query += pair.name
            query.append(UInt8(ascii: "="))
            query += pair.value
        }
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
