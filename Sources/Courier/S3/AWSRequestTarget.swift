import struct Foundation.URL

/// What of a URL the S3 signers sign: the `Host` a request to it carries, its path and its query
/// parameters, read from the URL's percent-encoded form.
///
/// The URL's string is split here (`URLParts`) rather than by `URLComponents`, which parses it
/// again and took ~10,000 instructions of a sign's ~150,000 (callgrind); Foundation has already
/// checked the URL, so what is left is finding its parts.
struct AWSRequestTarget {
    /// The URL's scheme, as written.
    let scheme: String
    /// The `Host` header libcurl sends for this URL: the host as the URL spells it (libcurl keeps
    /// its case), in brackets for IPv6, with `:port` unless the port is the scheme's default.
    let host: String
    /// The host and any port exactly as the URL wrote them (user and password left out), for
    /// building a URL to the same place.
    let authority: String
    /// The path as SigV4 signs it (`AWSURIEncoding.canonicalPath`).
    let canonicalPath: [UInt8]
    /// The query's parameters, decoded, in the URL's order.
    let parameters: [AWSURIEncoding.QueryParameter]

    init(_ url: URL) {
        // The absolute form: a URL relative to a base is signed as the request it makes.
        var text = url.absoluteString
        (scheme, host, authority, canonicalPath, parameters) = text.withUTF8 { bytes in
            let parts = URLParts(bytes)
            let written = parts.scheme.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
            let hostName =
                parts.host.map { UnsafeBufferPointer(rebasing: bytes[$0]) } ?? UnsafeBufferPointer(start: nil, count: 0)
            let scheme = written ?? url.scheme ?? "https"
            var authority = Array(hostName)
            var host = authority
            if let port = parts.port {
                authority.append(UInt8(ascii: ":"))
                authority += String(port).utf8
                if port != Self.defaultPort(scheme: scheme) { host = authority }
            }
            return (
                scheme, String(decoding: host, as: UTF8.self),
                String(decoding: authority, as: UTF8.self),
                AWSURIEncoding.canonicalPath(percentEncoded: UnsafeBufferPointer(rebasing: bytes[parts.path])),
                parts.query.map {
                    AWSURIEncoding.parameters(percentEncodedQuery: UnsafeBufferPointer(rebasing: bytes[$0]))
                }
                    ?? []
            )
        }
    }

    /// The port a `Host` header leaves out for `scheme` (any case), if it has one.
    private static func defaultPort(scheme: String) -> Int? {
        if scheme.utf8.count == 4, scheme.hasPrefixIgnoringASCIICase("http") { return 80 }
        if scheme.utf8.count == 5, scheme.hasPrefixIgnoringASCIICase("https") { return 443 }
        return nil
    }

    /// A URL to this target with the canonical path and `query` (already encoded), or nil when
    /// Foundation will not make one.
    func url(query: String) -> URL? {
        URL(
            string: scheme + "://" + authority + String(decoding: canonicalPath, as: UTF8.self)
                + (query.isEmpty ? "" : "?" + query))
    }
}
