import struct Foundation.Data

/// An S3 error document (`<Error><Code>NoSuchKey</Code>…</Error>`), or what a response without
/// one said (a HEAD's 404 has no body). A failed S3 request's `s3Error`, and its error's
/// `underlyingError`.
public struct S3Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// S3's error code: `NoSuchKey`, `NoSuchBucket`, `AccessDenied`, `SignatureDoesNotMatch`,
    /// `SlowDown`, …; for a response with no document, `NotFound`, `Forbidden`, … from its status.
    public let code: String
    /// The service's explanation, or the status line's reason.
    public let message: String
    /// The `<RequestId>` (or the `x-amz-request-id` header), for the service's support.
    public let requestID: String?
    /// The `<Resource>` (bucket or key) the error is about.
    public let resource: String?
    /// The bucket's region when the service names it (`x-amz-bucket-region`, or `<Region>`).
    public let region: String?
    /// The HTTP status the error came with (200 for an error inside a 200).
    public let statusCode: Int
    /// The service's clock, from a RequestTimeTooSkewed document's `<ServerTime>`.
    let serverTime: String?

    /// An error with these parts (what a test or a subclass makes; Courier reads them from the
    /// service's answers).
    public init(
        code: String, message: String, requestID: String? = nil, resource: String? = nil, region: String? = nil,
        statusCode: Int = 0
    ) {
        self.init(
            code: code, message: message, requestID: requestID, resource: resource, region: region,
            statusCode: statusCode, serverTime: nil)
    }

    init(
        code: String, message: String, requestID: String?, resource: String?, region: String?, statusCode: Int,
        serverTime: String?
    ) {
        self.code = code
        self.message = message
        self.requestID = requestID
        self.resource = resource
        self.region = region
        self.statusCode = statusCode
        self.serverTime = serverTime
    }

    public var description: String {
        var text = "\(code) (\(statusCode))"
        if !message.isEmpty { text += ": " + message }
        if let resource { text += " [\(resource)]" }
        return text
    }

    /// Whether `body` is an error document: its root element is `<Error>`. Looked for in a 200
    /// only where S3 sends one (CopyObject, CompleteMultipartUpload).
    static func isErrorDocument(_ body: Data) -> Bool {
        guard let document = try? S3XMLElement.parse(body.prefix(64 * 1024)) else { return false }
        return document.name == "Error"
    }

    /// The error a response with `statusCode`, `headers` and `body` carries: its document when
    /// there is one, else a code made from the status (`NotFound` for a HEAD's 404) and the
    /// status line's `reason`.
    static func from(statusCode: Int, reason: String, headers: HTTPHeaders, body: Data) -> S3Error {
        let region = headers["x-amz-bucket-region"]
        let requestID = headers["x-amz-request-id"]
        if let document = try? S3XMLElement.parse(body), document.name == "Error" {
            return S3Error(
                code: document.text("Code") ?? "Unknown", message: document.text("Message") ?? "",
                requestID: document.text("RequestId") ?? requestID, resource: document.text("Resource"),
                region: region ?? document.text("Region"), statusCode: statusCode,
                serverTime: document.text("ServerTime"))
        }
        return S3Error(
            code: codes[statusCode] ?? "HTTP\(statusCode)", message: reason,
            requestID: requestID, resource: nil, region: region, statusCode: statusCode, serverTime: nil)
    }

    /// What the SDKs call an error without a document, by its status.
    private static let codes = [
        301: "PermanentRedirect", 304: "NotModified", 400: "BadRequest", 403: "Forbidden", 404: "NotFound",
        405: "MethodNotAllowed", 409: "Conflict", 412: "PreconditionFailed", 416: "InvalidRange",
        500: "InternalError", 503: "ServiceUnavailable",
    ]
}
