import Foundation

/// ListObjectsV2's parameters and answer, and GetObject's (with `Range`).
struct S3Listing {
    let prefix: String
    let delimiter: String?
    let maxKeys: Int
    /// The key the listing starts after: `start-after`, or the one a continuation token names.
    let startAfter: String?
    let continuationToken: String?
    /// `encoding-type=url`: keys, prefixes and the delimiter are sent percent-encoded (a space as
    /// `+`, as S3 writes them and botocore reads them), so keys XML cannot carry survive the trip.
    let encodesKeys: Bool

    init(_ call: S3Call) throws(S3ErrorDocument) {
        encodesKeys = call.parameter("encoding-type") == "url"
        prefix = call.parameter("prefix") ?? ""
        delimiter = call.parameter("delimiter").flatMap { $0.isEmpty ? nil : $0 }
        if let text = call.parameter("max-keys") {
            guard let number = RouteTarget.number(text) else {
                throw S3ErrorDocument.invalidArgument("Provided max-keys not an integer or within integer range")
            }
            maxKeys = min(number, 1000)
        } else {
            maxKeys = 1000
        }
        continuationToken = call.parameter("continuation-token")
        if let token = continuationToken {
            // The token is the last key listed, base64-encoded: opaque to clients, as S3's is.
            guard let data = Data(base64Encoded: token), let key = String(data: data, encoding: .utf8) else {
                throw S3ErrorDocument.invalidArgument("The continuation token provided is incorrect")
            }
            startAfter = key
        } else {
            startAfter = call.parameter("start-after")
        }
    }

    /// The ListBucketResult for `objects` of `bucket`.
    func answer(bucket: String, objects: [String: S3StoredObject]) -> S3Answer {
        var contents: [(key: String, object: S3StoredObject)] = []
        var prefixes: [String] = []
        var lastListed: String?
        var isTruncated = false
        for key in objects.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard key.hasPrefix(prefix), startAfter.map({ $0.utf8.lexicographicallyPrecedes(key.utf8) }) ?? true else {
                continue
            }
            var commonPrefix: String?
            if let delimiter, let range = key.dropFirst(prefix.count).range(of: delimiter) {
                commonPrefix = String(key[..<range.upperBound])
                if commonPrefix == prefixes.last { continue }
            }
            guard contents.count + prefixes.count < maxKeys else {
                isTruncated = true
                break
            }
            if let commonPrefix {
                prefixes.append(commonPrefix)
                // Continuing after the prefix's last possible key skips the rest of it.
                lastListed = commonPrefix + "\u{10FFFF}"
            } else {
                contents.append((key, objects[key]!))
                lastListed = key
            }
        }
        var xml = "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + S3XML.element("Name", bucket)
        xml +=
            S3XML.element("Prefix", encoded(prefix))
            + S3XML.element("KeyCount", String(contents.count + prefixes.count))
        xml += S3XML.element("MaxKeys", String(maxKeys)) + S3XML.element("IsTruncated", String(isTruncated))
        if let delimiter { xml += S3XML.element("Delimiter", encoded(delimiter)) }
        if encodesKeys { xml += S3XML.element("EncodingType", "url") }
        if let continuationToken { xml += S3XML.element("ContinuationToken", continuationToken) }
        if let startAfter = continuationToken == nil ? startAfter : nil {
            xml += S3XML.element("StartAfter", encoded(startAfter))
        }
        if isTruncated, let lastListed {
            xml += S3XML.element("NextContinuationToken", Data(lastListed.utf8).base64EncodedString())
        }
        for (key, object) in contents {
            xml += "<Contents>" + S3XML.element("Key", encoded(key))
            xml +=
                S3XML.element("LastModified", S3Time.xmlDate(object.lastModified)) + S3XML.element("ETag", object.eTag)
            xml += S3XML.element("Size", String(object.body.count)) + S3XML.element("StorageClass", "STANDARD")
            xml += "</Contents>"
        }
        for commonPrefix in prefixes {
            xml += "<CommonPrefixes>" + S3XML.element("Prefix", encoded(commonPrefix)) + "</CommonPrefixes>"
        }
        return .xml(xml + "</ListBucketResult>")
    }

    /// `text` as the listing writes keys: as it is, or encoded for `encoding-type=url`.
    private func encoded(_ text: String) -> String {
        encodesKeys ? PercentCoding.encode(text).replacingOccurrences(of: "%20", with: "+") : text
    }

    /// GetObject's (and HeadObject's) answer: the object, or the bytes `range` asks for with `206`.
    static func objectAnswer(_ object: S3StoredObject, range: String?) throws(S3ErrorDocument) -> S3Answer {
        var headers = [
            HeaderField(name: "ETag", value: object.eTag),
            HeaderField(name: "Last-Modified", value: S3Time.httpDate(object.lastModified)),
            HeaderField(name: "Accept-Ranges", value: "bytes"),
            HeaderField(name: "Content-Type", value: object.contentType ?? "binary/octet-stream"),
        ]
        for (name, value) in object.metadata.sorted(by: { $0.key < $1.key }) {
            headers.append(HeaderField(name: "x-amz-meta-" + name, value: value))
        }
        let size = object.body.count
        guard let range, let bounds = byteRange(range, size: size) else {
            return S3Answer(headers: headers, body: Array(object.body))
        }
        guard let bounds = bounds else {
            throw S3ErrorDocument(
                status: 416, code: "InvalidRange", message: "The requested range is not satisfiable",
                details: [("RangeRequested", range), ("ActualObjectSize", String(size))],
                headers: [HeaderField(name: "Content-Range", value: "bytes */\(size)")])
        }
        headers.append(
            HeaderField(name: "Content-Range", value: "bytes \(bounds.lowerBound)-\(bounds.upperBound)/\(size)"))
        return S3Answer(
            status: 206, headers: headers, body: Array(object.body.dropFirst(bounds.lowerBound).prefix(bounds.count)))
    }

    /// A single `bytes=` range: nil to ignore the header (as S3 does with one it cannot read), an
    /// inner nil for one past the end.
    private static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>?? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let first = RouteTarget.number(String(parts[0].trimmingHTTPWhitespace()))
        let last = RouteTarget.number(String(parts[1].trimmingHTTPWhitespace()))
        switch (first, last) {
        case (let first?, let last):
            if let last, last < first { return nil }
            guard first < size else { return .some(nil) }
            return first...min(last ?? size - 1, size - 1)
        case (nil, let suffix?):
            guard suffix > 0, size > 0 else { return .some(nil) }
            return max(0, size - suffix)...(size - 1)
        case (nil, nil):
            return nil
        }
    }
}
