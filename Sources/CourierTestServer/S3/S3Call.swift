/// A request to the S3 service, read the way S3 reads it: path-style `/BUCKET/KEY`, with the
/// path and query decoded (a `+` as a space, as S3 does) and the operation it asks for.
struct S3Call {
    let method: String
    /// The path as sent, undecoded, for `<Resource>`.
    let rawPath: String
    /// The path decoded: bucket and key with `/` between.
    let path: String
    /// nil for `/` (the service itself).
    let bucket: String?
    /// nil for the bucket itself (`/BUCKET` or `/BUCKET/`).
    let key: String?
    /// The query's parameters in order, decoded; a bare name has the value "".
    let query: [(name: String, value: String)]
    /// What the request asks for; nil for a request the service does not do.
    let operation: S3ServerOperation?

    init(method: String, target: String, headers: [HeaderField]) {
        self.method = method
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        // A request sent to the server as a proxy (absolute form) names the service the same way.
        if let scheme = rest.range(of: "://") {
            let authority = rest[scheme.upperBound...]
            rest = authority.firstIndex(of: "/").map { authority[$0...] } ?? "/"
        }
        var queryText: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        rawPath = String(rest)
        path = Self.decode(rest)
        query = queryText.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (Self.decode(parts[0]), parts.count > 1 ? Self.decode(parts[1]) : "")
        }
        let trimmed = path.drop { $0 == "/" }
        if trimmed.isEmpty {
            (bucket, key) = (nil, nil)
        } else if let slash = trimmed.firstIndex(of: "/") {
            let key = trimmed[trimmed.index(after: slash)...]
            (bucket, self.key) = (String(trimmed[..<slash]), key.isEmpty ? nil : String(key))
        } else {
            (bucket, key) = (String(trimmed), nil)
        }
        let names = Set(query.map(\.name))
        let copies = headers.contains { $0.name.equalsIgnoringASCIICase("x-amz-copy-source") }
        operation = Self.operation(
            method: method, hasBucket: bucket != nil, hasKey: key != nil, query: names, copies: copies)
    }

    /// The first value of query parameter `name`.
    func parameter(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The `partNumber` parameter, for UploadPart.
    var partNumber: Int? { parameter("partNumber").flatMap(RouteTarget.number) }

    /// `text` percent-decoded, with a `+` read as a space, as S3 reads paths and queries.
    static func decode(_ text: Substring) -> String {
        PercentCoding.decode(Substring(text.replacingOccurrences(of: "+", with: "%20")))
    }

    private static func operation(
        method: String, hasBucket: Bool, hasKey: Bool, query: Set<String>, copies: Bool
    ) -> S3ServerOperation? {
        switch (method, hasBucket, hasKey) {
        case ("GET", false, _): return .listBuckets
        case ("PUT", true, false): return .createBucket
        case ("DELETE", true, false): return .deleteBucket
        case ("HEAD", true, false): return .headBucket
        case ("GET", true, false): return query.contains("list-type") ? .listObjects : nil
        case ("PUT", true, true):
            if query.contains("partNumber") && query.contains("uploadId") { return .uploadPart }
            return copies ? .copyObject : .putObject
        case ("GET", true, true): return .getObject
        case ("HEAD", true, true): return .headObject
        case ("DELETE", true, true): return query.contains("uploadId") ? .abortMultipartUpload : .deleteObject
        case ("POST", true, true):
            if query.contains("uploads") { return .createMultipartUpload }
            return query.contains("uploadId") ? .completeMultipartUpload : nil
        default: return nil
        }
    }
}
