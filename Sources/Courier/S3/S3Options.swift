/// How an S3 request names its bucket: in the host (`bucket.s3.eu-west-1.amazonaws.com`) or in
/// the path (`s3.eu-west-1.amazonaws.com/bucket`).
public enum S3AddressingStyle: Sendable, Hashable {
    /// Virtual-hosted on AWS for a bucket whose name can be a host name; path style for a custom
    /// endpoint (MinIO, Ceph, a local server: their host names rarely resolve per bucket), an IP
    /// address or `localhost`, and for a bucket with dots over https (its host name would not
    /// match S3's certificate).
    case automatic
    /// The bucket in the host name.
    case virtualHosted
    /// The bucket as the path's first segment.
    case path
}

/// Which signature an S3 request carries.
public enum S3SignatureVersion: Sendable, Hashable {
    /// AWS Signature Version 4 (HMAC-SHA256), what every AWS region and today's S3-compatible
    /// services accept.
    case v4
    /// Signature Version 2 (HMAC-SHA1), ASIS3Request's, for old servers; AWS refuses it in
    /// regions opened since 2014.
    case v2
}

/// Whether a Signature Version 4 request signs its body.
public enum S3PayloadSigning: Sendable, Hashable {
    /// The body's SHA-256 is signed (`x-amz-content-sha256`); a file body is read once from disk
    /// to hash it before it is sent.
    case signed
    /// `UNSIGNED-PAYLOAD`: the body is not read twice; over https, TLS protects it on the way.
    case unsigned
}

/// A canned ACL, sent as `x-amz-acl` (ASI's `accessPolicy`).
public enum S3AccessPolicy: String, Sendable, Hashable {
    /// Only the owner has access (S3's default).
    case `private` = "private"
    /// Anyone may read.
    case publicRead = "public-read"
    /// Anyone may read and write.
    case publicReadWrite = "public-read-write"
    /// Any authenticated AWS user may read.
    case authenticatedRead = "authenticated-read"
    /// The bucket's owner may read an object another account wrote.
    case bucketOwnerRead = "bucket-owner-read"
    /// The bucket's owner has full control of an object another account wrote.
    case bucketOwnerFullControl = "bucket-owner-full-control"
}

/// An object's storage class, sent as `x-amz-storage-class` and read back from listings. A
/// struct, not an enum: services add classes of their own, and a listing may name any.
public struct S3StorageClass: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The class's name as S3 writes it (`STANDARD`).
    public let rawValue: String
    /// A class by S3's name for it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `STANDARD`: S3's default.
    public static let standard = S3StorageClass(rawValue: "STANDARD")
    /// `REDUCED_REDUNDANCY`: ASI's other class, kept by AWS for old users.
    public static let reducedRedundancy = S3StorageClass(rawValue: "REDUCED_REDUNDANCY")
    /// `STANDARD_IA`: infrequent access.
    public static let standardIA = S3StorageClass(rawValue: "STANDARD_IA")
    /// `ONEZONE_IA`: infrequent access in one availability zone.
    public static let oneZoneIA = S3StorageClass(rawValue: "ONEZONE_IA")
    /// `INTELLIGENT_TIERING`: moved between tiers by use.
    public static let intelligentTiering = S3StorageClass(rawValue: "INTELLIGENT_TIERING")
    /// `GLACIER`: archived; restored before it can be read.
    public static let glacier = S3StorageClass(rawValue: "GLACIER")
    /// `GLACIER_IR`: archived with instant retrieval.
    public static let glacierInstantRetrieval = S3StorageClass(rawValue: "GLACIER_IR")
    /// `DEEP_ARCHIVE`: the cheapest archive, hours to restore.
    public static let deepArchive = S3StorageClass(rawValue: "DEEP_ARCHIVE")

    /// The raw value.
    public var description: String { rawValue }
}

/// An upload's checksum, sent as `x-amz-checksum-<algorithm>` (base64) for the service to check
/// the body against. Off unless asked for: services that lack them (older MinIO, Ceph, R2 before
/// 2024) refuse or mishandle the headers, which is what turning CRC32 on by default did to them in
/// boto3 (boto/boto3#4392).
public enum S3ChecksumAlgorithm: String, Sendable, Hashable {
    /// CRC-32 (IEEE), `x-amz-checksum-crc32`.
    case crc32
    /// CRC-32C (Castagnoli), `x-amz-checksum-crc32c`.
    case crc32c
    /// SHA-256, `x-amz-checksum-sha256`.
    case sha256

    /// The header the checksum goes in.
    var headerName: String { "x-amz-checksum-" + rawValue }
}
