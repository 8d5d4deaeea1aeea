/// Where the parts of an absolute URL's string are, found by RFC 3986's delimiters:
/// `scheme:[//[user@]host[:port]]path[?query][#fragment]`, each part as written (percent-encoded),
/// as `URLComponents`' `percentEncoded…` properties give them. Offsets are into the bytes given.
struct URLParts {
    var scheme: Range<Int>?
    /// The host, IPv6 brackets kept; nil with no authority.
    var host: Range<Int>?
    var port: Int?
    var path: Range<Int>
    var query: Range<Int>?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        let end = bytes.count
        var position = 0
        // A scheme ends at the first ":" that comes before any "/", "?" or "#".
        var index = 0
        while index < end, !Self.endsAuthority(bytes[index]) {
            if bytes[index] == UInt8(ascii: ":") {
                scheme = 0..<index
                position = index + 1
                break
            }
            index += 1
        }
        if position + 1 < end, bytes[position] == UInt8(ascii: "/"), bytes[position + 1] == UInt8(ascii: "/") {
            let start = position + 2
            var authorityEnd = start
            while authorityEnd < end, !Self.endsAuthority(bytes[authorityEnd]) { authorityEnd += 1 }
            var hostStart = start
            for candidate in start..<authorityEnd where bytes[candidate] == UInt8(ascii: "@") {
                hostStart = candidate + 1
            }
            // An IPv6 address's colons are inside its brackets; a port's colon comes after them.
            var searchFrom = hostStart
            if hostStart < authorityEnd, bytes[hostStart] == UInt8(ascii: "[") {
                searchFrom = authorityEnd
                for candidate in hostStart..<authorityEnd where bytes[candidate] == UInt8(ascii: "]") {
                    searchFrom = candidate + 1
                    break
                }
            }
            var hostEnd = authorityEnd
            for candidate in searchFrom..<authorityEnd where bytes[candidate] == UInt8(ascii: ":") {
                hostEnd = candidate
                break
            }
            host = hostStart..<hostEnd
            if hostEnd < authorityEnd { port = Self.decimal(bytes, hostEnd + 1..<authorityEnd) }
            position = authorityEnd
        }
        var pathEnd = position
        while pathEnd < end, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        path = position..<pathEnd
        if pathEnd < end, bytes[pathEnd] == UInt8(ascii: "?") {
            var queryEnd = pathEnd + 1
            while queryEnd < end, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            query = pathEnd + 1..<queryEnd
        }
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
    }

    /// The number the digits in `range` spell, as `Int(_:)` reads them: nil when empty, not all
    /// digits (a sign is allowed), or too big.
    private static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        Int(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
    }
}
