import Foundation

/// An object in the ``TestServer``'s S3 service, as ``TestServer/s3Object(bucket:key:)`` shows it.
public struct S3StoredObject: Sendable, Hashable {
    /// The object's bytes.
    public let body: Data
    /// The `Content-Type` it was stored with, if any.
    public let contentType: String?
    /// Its user metadata: each `x-amz-meta-NAME` header it was stored with, by `NAME` lower-cased.
    public let metadata: [String: String]
    /// Its ETag, quoted as S3 sends it: the MD5 of the body in hex, or for a multipart upload the
    /// MD5 of the parts' MD5s followed by `-` and the number of parts.
    public let eTag: String
    /// When it was stored, by the S3 service's clock, to the second.
    public let lastModified: Date

    init(body: Data, contentType: String?, metadata: [String: String], eTag: String, lastModified: Date) {
        self.body = body
        self.contentType = contentType
        self.metadata = metadata
        self.eTag = eTag
        self.lastModified = lastModified
    }
}
