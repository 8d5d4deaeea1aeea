import struct Foundation.URL
import struct Foundation.URLComponents

/// What of a URL the S3 signers sign: the `Host` a request to it carries, its path and its query
/// parameters, read from the URL's percent-encoded form.
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
    let canonicalPath: String
    /// The query's parameters, decoded, in the URL's order.
    let parameters: [AWSURIEncoding.QueryParameter]

    /// The ports a `Host` header leaves out.
    private static let defaultPorts = ["http": 80, "https": 443]

    init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        scheme = components?.scheme ?? url.scheme ?? "https"
        // URLComponents keeps an IPv6 address's brackets, which the Host header has too.
        let hostName = components?.percentEncodedHost ?? ""
        let port = components?.port
        authority = port.map { "\(hostName):\($0)" } ?? hostName
        if let port, port != Self.defaultPorts[scheme.lowercased()] {
            host = "\(hostName):\(port)"
        } else {
            host = hostName
        }
        canonicalPath = AWSURIEncoding.canonicalPath(percentEncoded: components?.percentEncodedPath ?? "")
        parameters = AWSURIEncoding.parameters(percentEncodedQuery: components?.percentEncodedQuery)
    }

    /// A URL to this target with the canonical path and `query` (already encoded), or nil when
    /// Foundation will not make one.
    func url(query: String) -> URL? {
        URL(string: scheme + "://" + authority + canonicalPath + (query.isEmpty ? "" : "?" + query))
    }
}
