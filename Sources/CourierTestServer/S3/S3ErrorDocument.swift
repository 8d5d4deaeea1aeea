/// An S3 error answer: a status, the `<Error>` document's code, message and extra elements, and
/// any headers S3 sends with it.
struct S3ErrorDocument: Error {
    let status: Int
    let code: String
    let message: String
    /// Elements after `<Message>`, e.g. `<Region>` or `<StringToSign>`, in order.
    var details: [(name: String, value: String)] = []
    var headers: [HeaderField] = []

    /// The XML body, with `requestID` and the resource (the request's path) filled in.
    func body(requestID: String, resource: String) -> [UInt8] {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>"
        xml += S3XML.element("Code", code) + S3XML.element("Message", message)
        for detail in details { xml += S3XML.element(detail.name, detail.value) }
        xml += S3XML.element("RequestId", requestID) + S3XML.element("Resource", resource) + "</Error>"
        return Array(xml.utf8)
    }

    static func accessDenied(_ message: String = "Access Denied", details: [(name: String, value: String)] = []) -> Self
    {
        S3ErrorDocument(status: 403, code: "AccessDenied", message: message, details: details)
    }

    static func noSuchBucket(_ bucket: String) -> Self {
        S3ErrorDocument(
            status: 404, code: "NoSuchBucket", message: "The specified bucket does not exist.",
            details: [("BucketName", bucket)])
    }

    static func noSuchKey(_ key: String) -> Self {
        S3ErrorDocument(
            status: 404, code: "NoSuchKey", message: "The specified key does not exist.", details: [("Key", key)])
    }

    static func noSuchUpload(_ uploadID: String) -> Self {
        S3ErrorDocument(
            status: 404, code: "NoSuchUpload",
            message: "The specified upload does not exist. The upload ID may be invalid, or the upload may have been "
                + "aborted or completed.", details: [("UploadId", uploadID)])
    }

    static func invalidArgument(_ message: String) -> Self {
        S3ErrorDocument(status: 400, code: "InvalidArgument", message: message)
    }
}

/// The little XML the S3 service writes and reads.
enum S3XML {
    /// `<name>value</name>`, the value escaped.
    static func element(_ name: String, _ value: String) -> String {
        "<\(name)>\(escape(value))</\(name)>"
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The text of every `<name>` element in `xml`, in order, unescaped. Enough for the flat
    /// documents clients send (CompleteMultipartUpload, CreateBucketConfiguration).
    static func values(of name: String, in xml: String) -> [String] {
        var values: [String] = []
        var rest = Substring(xml)
        while let open = rest.range(of: "<\(name)>"), let close = rest[open.upperBound...].range(of: "</\(name)>") {
            values.append(unescape(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return values
    }

    private static func unescape(_ text: Substring) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }
}
