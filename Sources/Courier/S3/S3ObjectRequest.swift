import Foundation

/// ASIS3ObjectRequest: one object — get it (to memory, or to a file with HTTPRequest's
/// `downloadDestinationPath`, resume and progress), put it from data or a file (streamed from
/// disk), head, delete or copy it.
///
/// ```swift
/// let upload = S3ObjectRequest.put(file: "/tmp/report.pdf", bucket: "reports", key: "2024/q1.pdf")
/// upload.metadata = ["author": "ana"]
/// upload.startSynchronous()
/// ```
///
/// `@unchecked Sendable`: as S3Request, plus `object`, which its own lock guards (taken alone).
open class S3ObjectRequest: S3Request, @unchecked Sendable {
    final let object = Locked(S3ObjectSettings())

    /// A request for `url`; `init(bucket:key:)` is the one to use (this is what `copy()` calls).
    public required init(url: URL) {
        super.init(url: url)
    }

    /// A GET of `key` in `bucket`.
    public required convenience init(bucket: String, key: String) {
        let addressed = Self.addressed(bucket: bucket, key: key)
        self.init(url: addressed?.url ?? Self.fallbackURL)
        s3.withLock { $0.run.addressed = addressed }
        object.withLock {
            $0.bucket = bucket
            $0.key = key
        }
    }

    /// A GET of one of the object's sub-resources: `subResource` is the query, as S3 names it
    /// ("acl", "tagging", "torrent", "uploadId=…").
    public convenience init(bucket: String, key: String, subResource: String) {
        self.init(bucket: bucket, key: key)
        self.subResource = subResource
    }

    /// A PUT of `data` as `key` in `bucket`.
    public class func put(data: Data, bucket: String, key: String) -> Self {
        let request = self.init(bucket: bucket, key: key)
        request.requestMethod = "PUT"
        request.postBody = data
        return request
    }

    /// A PUT of the file at `file` as `key` in `bucket`, streamed from disk as it is sent (and
    /// read once before, to hash it, unless `payloadSigning` is `.unsigned`).
    public class func put(file: String, bucket: String, key: String) -> Self {
        let request = self.init(bucket: bucket, key: key)
        request.requestMethod = "PUT"
        request.shouldStreamPostDataFromDisk = true
        request.postBodyFilePath = file
        return request
    }

    /// A HEAD of `key`: its headers and `metadata`, no body.
    public class func head(bucket: String, key: String) -> Self {
        let request = self.init(bucket: bucket, key: key)
        request.requestMethod = "HEAD"
        return request
    }

    /// A DELETE of `key`.
    public class func delete(bucket: String, key: String) -> Self {
        let request = self.init(bucket: bucket, key: key)
        request.requestMethod = "DELETE"
        return request
    }

    /// A server-side copy of `sourceKey` in `sourceBucket` to `key` in `bucket` (CopyObject): the
    /// bytes never come down. The copy keeps the source's metadata unless `metadata` is set.
    public class func copy(fromBucket sourceBucket: String, key sourceKey: String, toBucket bucket: String, key: String)
        -> Self
    {
        let request = self.init(bucket: bucket, key: key)
        request.requestMethod = "PUT"
        request.object.withLock {
            $0.sourceBucket = sourceBucket
            $0.sourceKey = sourceKey
        }
        return request
    }

    // MARK: - The object

    /// The bucket.
    public var bucket: String {
        get { object.withLock { $0.bucket } }
        set { object.withLock { $0.bucket = newValue } }
    }

    /// The object's key (its name in the bucket: any UTF-8, `/` included).
    public var key: String {
        get { object.withLock { $0.key } }
        set { object.withLock { $0.key = newValue } }
    }

    /// The query naming a sub-resource ("acl", "tagging", …), or nil.
    public var subResource: String? {
        get { object.withLock { $0.subResource } }
        set { object.withLock { $0.subResource = newValue } }
    }

    /// For a copy, the source's bucket.
    public var sourceBucket: String? {
        get { object.withLock { $0.sourceBucket } }
        set { object.withLock { $0.sourceBucket = newValue } }
    }

    /// For a copy, the source's key.
    public var sourceKey: String? {
        get { object.withLock { $0.sourceKey } }
        set { object.withLock { $0.sourceKey = newValue } }
    }

    /// The Content-Type a PUT stores; nil: `application/octet-stream`.
    public var mimeType: String? {
        get { object.withLock { $0.mimeType } }
        set { object.withLock { $0.mimeType = newValue } }
    }

    /// The storage class a PUT or copy asks for (`x-amz-storage-class`); nil: the bucket's.
    public var storageClass: S3StorageClass? {
        get { object.withLock { $0.storageClass } }
        set { object.withLock { $0.storageClass = newValue } }
    }

    /// User metadata, sent as `x-amz-meta-<name>` with a PUT or copy; once a GET or HEAD has
    /// its response, the object's, read back from it (names lower-cased, as S3 stores them).
    public var metadata: [String: String] {
        get {
            let (method, status) = state.withLock { ($0.config.requestMethod, $0.response.statusCode) }
            guard method == "GET" || method == "HEAD", (200..<300).contains(status) else {
                return object.withLock { $0.metadata }
            }
            var metadata: [String: String] = [:]
            for (name, value) in responseHeaders {
                let lowered = name.lowercased()
                if lowered.hasPrefix("x-amz-meta-") { metadata[String(lowered.dropFirst(11))] = value }
            }
            return metadata
        }
        set { object.withLock { $0.metadata = newValue } }
    }

    /// A checksum of the body for the service to check (`x-amz-checksum-*`); nil (the default):
    /// none, so services that lack them keep working.
    public var checksumAlgorithm: S3ChecksumAlgorithm? {
        get { object.withLock { $0.checksumAlgorithm } }
        set { object.withLock { $0.checksumAlgorithm = newValue } }
    }

    // MARK: - S3Request

    override func operation() -> S3Operation {
        let settings = object.withLock { $0 }
        let method = requestMethod
        var operation = S3Operation(bucket: settings.bucket, key: settings.key)
        operation.query = settings.subResource ?? ""
        let writes = method == "PUT" || method == "POST"
        // What stores an object: a PUT, a copy, and the start of a multipart upload (`?uploads`);
        // not its parts, its completion (`?uploadId=`) or a sub-resource's PUT (`?acl`).
        let startsMultipart = writes && settings.subResource == "uploads"
        let completesMultipart = method == "POST" && settings.subResource?.hasPrefix("uploadId=") == true
        let copies = settings.sourceBucket != nil && settings.sourceKey != nil
        let stores = writes && (settings.subResource == nil || startsMultipart)
        if let sourceBucket = settings.sourceBucket, let sourceKey = settings.sourceKey {
            operation.headers["x-amz-copy-source"] =
                "/" + AWSURIEncoding.encode(sourceBucket) + "/" + AWSURIEncoding.encode(sourceKey, keepingSlash: true)
            if !settings.metadata.isEmpty { operation.headers["x-amz-metadata-directive"] = "REPLACE" }
        } else if stores {
            operation.headers["Content-Type"] = settings.mimeType ?? "application/octet-stream"
            if !startsMultipart { operation.checksum = settings.checksumAlgorithm }
        }
        operation.answersErrorIn200 = copies || completesMultipart
        operation.takesAccessPolicy = stores
        if stores {
            if let storageClass = settings.storageClass { operation.headers["x-amz-storage-class"] = storageClass.rawValue }
            for (name, value) in settings.metadata.sorted(by: { $0.key < $1.key }) {
                operation.headers["x-amz-meta-" + name.lowercased()] = value
            }
        }
        return operation
    }

    /// Copies S3Request's configuration, then the object's (bucket, key, copy source, type,
    /// storage class, metadata, checksum) into `copy`.
    open override func copyConfiguration(into copy: HTTPRequest) {
        super.copyConfiguration(into: copy)
        guard let copy = copy as? S3ObjectRequest else { return }
        let settings = object.withLock { $0 }
        copy.object.withLock { $0 = settings }
    }

    /// Where a new request goes with the class's defaults: its `url` until an attempt works out
    /// the real one (the same, unless the request's settings change), kept for that attempt.
    static func addressed(bucket: String?, key: String) -> S3Addressing.Addressed? {
        let settings = S3Settings()
        let addressing = S3Addressing(
            endpoint: settings.endpoint, region: settings.region, scheme: settings.requestScheme,
            style: settings.addressingStyle)
        return try? addressing.url(bucket: bucket, key: key, query: "", cached: nil)
    }

    /// The URL of a request whose bucket cannot be addressed (an empty name): its attempt fails,
    /// saying why.
    static let fallbackURL = URL(string: "https://s3.amazonaws.com/")!
}

/// What an S3ObjectRequest names and sends.
struct S3ObjectSettings: Sendable {
    var bucket = ""
    var key = ""
    var subResource: String?
    var sourceBucket: String?
    var sourceKey: String?
    var mimeType: String?
    var storageClass: S3StorageClass?
    var metadata: [String: String] = [:]
    var checksumAlgorithm: S3ChecksumAlgorithm?
}
