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
        // Written out as bytes and parsed once: URLComponents made and read back cost ~25,000
        // instructions a request, and joined Strings ~7,000 more (callgrind, `courier-bench get --s3`).
        var scheme = self.scheme
        var host: String
        var port = ""
        var basePath: Substring = ""
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
            let isIPv6 = endpointHost.utf8.contains(UInt8(ascii: ":")) && endpointHost.utf8.first != UInt8(ascii: "[")
            host = isIPv6 ? "[" + endpointHost + "]" : endpointHost
            if let number = endpoint.port { port = ":" + String(number) }
            basePath = endpoint.path(percentEncoded: true)[...]
            while basePath.utf8.last == UInt8(ascii: "/") { basePath = basePath.dropLast() }
        } else {
            host = "s3." + region + ".amazonaws.com"
        }
        if let bucket, bucket.isEmpty {
            throw HTTPRequestError(type: .unableToCreateRequest, message: "The S3 bucket name is empty")
        }
        let virtualHost = bucket.map { usesVirtualHost(for: $0, scheme: scheme) } ?? false
        var text: [UInt8] = []
        text.reserveCapacity(64 + (key?.utf8.count ?? 0) * 3 + query.utf8.count)
        text.append(contentsOf: scheme.utf8)
        text.append(contentsOf: "://".utf8)
        if let bucket, virtualHost {
            text.append(contentsOf: bucket.utf8)
            text.append(UInt8(ascii: "."))
        }
        text.append(contentsOf: host.utf8)
        text.append(contentsOf: port.utf8)
        let pathStart = text.count
        text.append(contentsOf: basePath.utf8)
        if let bucket, !virtualHost {
            text.append(UInt8(ascii: "/"))
            AWSURIEncoding.append(bucket.utf8, to: &text)
        }
        if let key, !key.isEmpty {
            text.append(UInt8(ascii: "/"))
            AWSURIEncoding.append(key.utf8, keepingSlash: true, to: &text)
        }
        if text.count == pathStart { text.append(UInt8(ascii: "/")) }
        if !query.isEmpty {
            text.append(UInt8(ascii: "?"))
            text.append(contentsOf: query.utf8)
        }
        let string = String(decoding: text, as: UTF8.self)
        guard let url = URL(string: string) else {
            throw HTTPRequestError(
                type: .unableToCreateRequest,
                message: "No URL can be made for bucket \(bucket ?? "-") and key \(key ?? "-"): \(string)")
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
