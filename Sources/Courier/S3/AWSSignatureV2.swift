import struct Foundation.Data
import struct Foundation.URL
import struct Foundation.URLComponents

/// AWS Signature Version 2, ASIS3Request's HMAC-SHA1 signing, for old S3-compatible servers that
/// know nothing newer (API.md's `S3SignatureVersion.v2`). AWS itself no longer accepts it in new
/// regions.
///
/// The string to sign is the method, `Content-MD5`, `Content-Type` and `Date` (empty when an
/// `x-amz-date` is sent: the service reads that one instead), one a line, then the `x-amz-*`
/// headers, then the canonicalized resource; the `Authorization` header is `AWS <key>:<base64 of
/// its HMAC-SHA1>`. Unlike ASI, the `x-amz-*` headers are sorted by name, as AWS specifies: ASI
/// sorted them by value, so an ACL with a storage class signed in the wrong order
/// (pokeb/asi-http-request#74).
struct AWSSignatureV2: Sendable {
    let accessKey: String
    let secretAccessKey: String

    /// The query parameters that name a sub-resource and so are signed as part of the resource
    /// (AWS's list, as botocore keeps it); every other parameter is left out.
    static let subResources: Set<String> = [
        "accelerate", "acl", "analytics", "cors", "defaultObjectAcl", "delete", "inventory", "lifecycle", "location",
        "logging", "metrics", "notification", "object-lock", "partNumber", "policy", "replication", "requestPayment",
        "response-cache-control", "response-content-disposition", "response-content-encoding",
        "response-content-language", "response-content-type", "response-expires", "restore", "select", "select-type",
        "storageClass", "tagging", "torrent", "uploadId", "uploads", "versionId", "versioning", "versions", "website",
    ]

    /// The `Authorization` header's value for a request with these `headers` (its `Date`,
    /// `Content-MD5`, `Content-Type` and `x-amz-*` ones are signed) on `resource`
    /// (`canonicalizedResource(bucket:url:)`).
    func authorization(method: String, resource: String, headers: HTTPHeaders) -> String {
        let text = stringToSign(method: method, resource: resource, headers: headers)
        let mac = Digests.hmacSHA1(key: Array(secretAccessKey.utf8), text)
        return "AWS \(accessKey):\(Data(mac).base64EncodedString())"
    }

    /// `url` with query-string authentication (`AWSAccessKeyId`, `Expires`, `Signature`, and
    /// `x-amz-security-token` with a session token), valid until `expires` (seconds since 1970).
    func presign(method: String, url: URL, resource: String, expires: Int, sessionToken: String?) -> URL {
        var headers = HTTPHeaders()
        headers["Date"] = String(expires)
        if let sessionToken { headers["x-amz-security-token"] = sessionToken }
        let text = stringToSign(method: method, resource: resource, headers: headers)
        let signature = Data(Digests.hmacSHA1(key: Array(secretAccessKey.utf8), text)).base64EncodedString()
        var query = [
            "AWSAccessKeyId=" + AWSURIEncoding.encode(accessKey), "Expires=\(expires)",
            "Signature=" + AWSURIEncoding.encode(signature),
        ]
        if let sessionToken { query.append("x-amz-security-token=" + AWSURIEncoding.encode(sessionToken)) }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let existing = components?.percentEncodedQuery.map { [$0] } ?? []
        components?.percentEncodedQuery = (existing + query).joined(separator: "&")
        return components?.url ?? url
    }

    /// What is signed, one part a line.
    func stringToSign(method: String, resource: String, headers: HTTPHeaders) -> String {
        var amazonHeaders: [String: String] = [:]
        for (name, value) in headers {
            let name = name.lowercased()
            guard name.hasPrefix("x-amz-") else { continue }
            let value = Self.trimmed(value)
            amazonHeaders[name] = amazonHeaders[name].map { $0 + "," + value } ?? value
        }
        let date = amazonHeaders["x-amz-date"] == nil ? Self.trimmed(headers["Date"] ?? "") : ""
        let amazonLines = amazonHeaders.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            .map { $0.key + ":" + $0.value + "\n" }.joined()
        return method + "\n" + Self.trimmed(headers["Content-MD5"] ?? "") + "\n"
            + Self.trimmed(headers["Content-Type"] ?? "") + "\n" + date + "\n" + amazonLines + resource
    }

    /// The resource as SigV2 signs it: `/bucket` (when the bucket is in the host name, not the
    /// path), the URL's path as sent (`/` when empty), then its sub-resources (`?acl`,
    /// `?partNumber=2&uploadId=…`) sorted by name with their values decoded (a bare name stays
    /// bare; `acl=` keeps its `=`).
    static func canonicalizedResource(bucket: String?, url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let path = components?.percentEncodedPath ?? ""
        var resource = (bucket.map { "/" + $0 } ?? "") + (path.isEmpty ? "/" : path)
        let signed = AWSURIEncoding.parameters(percentEncodedQuery: components?.percentEncodedQuery).compactMap {
            parameter -> (name: String, value: String?)? in
            let name = String(decoding: parameter.name, as: UTF8.self)
            guard subResources.contains(name) else { return nil }
            return (name, parameter.isBare ? nil : String(decoding: parameter.value, as: UTF8.self))
        }
        if !signed.isEmpty {
            resource +=
                "?"
                + signed.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
                .map { parameter in parameter.value.map { parameter.name + "=" + $0 } ?? parameter.name }
                .joined(separator: "&")
        }
        return resource
    }

    /// `value` without the spaces and tabs around it.
    private static func trimmed(_ value: String) -> String {
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        guard let first = value.firstIndex(where: { !isBlank($0) }), let last = value.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(value[first...last])
    }
}
