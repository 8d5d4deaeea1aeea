import struct Foundation.URL

/// Where an S3 request goes: the URL made from the endpoint (AWS's, or a service's own), the
/// region, the addressing style, the bucket, the key and the query. Pure: S3Request asks it at
/// each attempt, since a wrong-region retry changes the region.
struct S3Addressing: Sendable, Equatable {
    var endpoint: URL?
    var region: String
    /// The scheme for AWS's endpoint (a custom endpoint has its own).
    var scheme: String
    var style: S3AddressingStyle

    /// The URL for `bucket` (nil: the service itself) and `key` (nil or empty: the bucket), with
    /// `query` (already encoded, no `?`). The key is encoded as SigV4 signs it (each byte but
    /// RFC 3986's unreserved characters and `/`, so `+` is `%2B`: S3 reads a bare `+` as a space).
    func url(bucket: String?, key: String?, query: String = "") throws(HTTPRequestError) -> URL {
        // Written out as a string and parsed once: URLComponents made and read back cost ~25,000
        // instructions a request (callgrind, `courier-bench get --s3`), a fifth of a signed GET.
        var scheme = self.scheme
        var host: String
        var port = ""
        var path = ""
        if let endpoint {
            guard let endpointScheme = endpoint.scheme, let endpointHost = endpoint.host(percentEncoded: true),
                !endpointHost.isEmpty
            else {
                throw HTTPRequestError(
                    type: .unableToCreateRequest, message: "The S3 endpoint \(endpoint) has no scheme or host",
                    url: endpoint)
            }
            scheme = endpointScheme
            // An IPv6 address is written in brackets in a URL, as in a Host header.
            host = endpointHost.utf8.contains(UInt8(ascii: ":")) && !endpointHost.hasPrefix("[") ? "[" + endpointHost + "]" : endpointHost
            if let number = endpoint.port { port = ":" + String(number) }
            path = endpoint.path(percentEncoded: true)
            while path.hasSuffix("/") { path.removeLast() }
        } else {
            host = "s3." + region + ".amazonaws.com"
        }
        if let bucket {
            guard !bucket.isEmpty else {
                throw HTTPRequestError(type: .unableToCreateRequest, message: "The S3 bucket name is empty")
            }
            if usesVirtualHost(for: bucket, scheme: scheme) {
                host = bucket + "." + host
            } else {
                path += "/" + AWSURIEncoding.encode(bucket)
            }
        }
        if let key, !key.isEmpty { path += "/" + AWSURIEncoding.encode(key, keepingSlash: true) }
        if path.isEmpty { path = "/" }
        let text = scheme + "://" + host + port + path + (query.isEmpty ? "" : "?" + query)
        guard let url = URL(string: text) else {
            throw HTTPRequestError(
                type: .unableToCreateRequest,
                message: "No URL can be made for bucket \(bucket ?? "-") and key \(key ?? "-"): \(text)")
        }
        return url
    }

    /// The URL for `bucket`, `key` and `query`, reusing `cached` when it was made for the same:
    /// making one costs ~17,000 instructions (callgrind), and a request's first attempt usually
    /// goes where its initializer already worked out.
    func url(bucket: String?, key: String?, query: String, cached: Addressed?) throws(HTTPRequestError) -> Addressed {
        if let cached, cached.addressing == self, cached.bucket == bucket, cached.key == key, cached.query == query {
            return cached
        }
        return Addressed(
            addressing: self, bucket: bucket, key: key, query: query, url: try url(bucket: bucket, key: key, query: query))
    }

    /// A URL made, and what it was made from.
    struct Addressed: Sendable {
        let addressing: S3Addressing
        let bucket: String?
        let key: String?
        let query: String
        let url: URL
    }

    /// Whether `bucket` goes in the host name.
    func usesVirtualHost(for bucket: String, scheme: String) -> Bool {
        switch style {
        case .virtualHosted: return true
        case .path: return false
        case .automatic:
            guard endpoint == nil, Self.isDNSCompatible(bucket) else { return false }
            // A dotted name's host would not match the *.s3 certificate.
            return !(bucket.contains(".") && scheme.lowercased() == "https")
        }
    }

    /// S3's rules for a bucket name that can be a host name: 3 to 63 lower-case letters, digits,
    /// dots and hyphens, starting and ending with a letter or digit, no `..`, and not an IP address.
    static func isDNSCompatible(_ bucket: String) -> Bool {
        let bytes = Array(bucket.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let isLowerAlphanumeric = { (byte: UInt8) in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard isLowerAlphanumeric(bytes.first!), isLowerAlphanumeric(bytes.last!) else { return false }
        for (index, byte) in bytes.enumerated() {
            guard isLowerAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") else { return false }
            if byte == UInt8(ascii: "."), index > 0, bytes[index - 1] == UInt8(ascii: ".") { return false }
        }
        let labels = bucket.split(separator: ".")
        if labels.count == 4, labels.allSatisfy({ UInt8($0) != nil }) { return false }
        return true
    }
}
