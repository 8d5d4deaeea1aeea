import Foundation

/// An object in a bucket listing (ASIS3BucketObject).
public struct S3BucketObject: Sendable, Hashable {
    /// The bucket it was listed in.
    public let bucket: String
    /// The object's key.
    public let key: String
    /// When it was last written, as listed.
    public let lastModified: Date?
    /// The ETag as listed, quotes removed (an MD5 in hex for a simple upload, `<hex>-<parts>` for
    /// a multipart one).
    public let eTag: String
    /// Its size in bytes.
    public let size: Int64
    /// Its storage class, when listed.
    public let storageClass: S3StorageClass?

    /// An object as a listing describes it.
    public init(
        bucket: String, key: String, lastModified: Date? = nil, eTag: String = "", size: Int64 = 0,
        storageClass: S3StorageClass? = nil
    ) {
        self.bucket = bucket
        self.key = key
        self.lastModified = lastModified
        self.eTag = eTag
        self.size = size
        self.storageClass = storageClass
    }

    /// A GET of this object.
    public func getRequest() -> S3ObjectRequest { S3ObjectRequest(bucket: bucket, key: key) }
    /// A HEAD of this object.
    public func headRequest() -> S3ObjectRequest { S3ObjectRequest.head(bucket: bucket, key: key) }
    /// A DELETE of this object.
    public func deleteRequest() -> S3ObjectRequest { S3ObjectRequest.delete(bucket: bucket, key: key) }

    /// A `<Contents>` element of a ListObjectsV2 answer.
    init(listed element: S3XMLElement, bucket: String) {
        self.init(
            bucket: bucket, key: element.text("Key") ?? "",
            lastModified: element.text("LastModified").flatMap(S3Date.parse),
            eTag: (element.text("ETag") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\"")),
            size: Int64(element.text("Size") ?? "") ?? 0,
            storageClass: element.text("StorageClass").map(S3StorageClass.init(rawValue:)))
    }
}

/// A bucket in the service's list (ASIS3Bucket).
public struct S3Bucket: Sendable, Hashable {
    /// The bucket's name.
    public let name: String
    /// When it was made, as listed.
    public let creationDate: Date?

    /// A bucket as the service lists it.
    public init(name: String, creationDate: Date? = nil) {
        self.name = name
        self.creationDate = creationDate
    }
}
