import Foundation

/// A small S3 service that checks AWS Signature Version 4 as S3 does, for testing S3 clients'
/// signing and their handling of S3's faults.
///
/// It answers path-style requests, `http://127.0.0.1:<port>/BUCKET/KEY` (``s3URL(bucket:key:)``),
/// once a test has given it credentials or a bucket; before that, and for every path a ``Route``
/// takes, the server behaves as without it. Each request must be signed (an `Authorization:
/// AWS4-HMAC-SHA256` header, or a presigned URL's `X-Amz-*` query) with credentials from
/// ``addS3Credentials(accessKey:secretAccessKey:sessionToken:)``, for the bucket's region and
/// service `s3`; the path and query are read as S3 reads them (decoded, a `+` as a space). What is
/// wrong gets S3's status and `<Error>` document (`Code`, `Message`, details, `RequestId`,
/// `Resource`; `Content-Type: application/xml`), checked in this order:
///
/// | what | answer |
/// | --- | --- |
/// | no signature | 403 `AccessDenied` |
/// | an unknown access key | 403 `InvalidAccessKeyId` |
/// | a missing or wrong session token | 403 `InvalidToken` |
/// | the scope's region is not the bucket's | 400 `AuthorizationHeaderMalformed` (a presigned URL: `AuthorizationQueryParametersError`) with `<Region>`, or 301 `PermanentRedirect` (``S3WrongRegionStyle``); both with `x-amz-bucket-region` |
/// | `x-amz-date` more than 15 minutes from the service's clock | 403 `RequestTimeTooSkewed`, the `Date` header giving the service's time |
/// | a presigned URL past `X-Amz-Date` + `X-Amz-Expires` | 403 `AccessDenied`, "Request has expired" |
/// | an `x-amz-*` header (or `host`) not signed | 403 `AccessDenied` with `<HeadersNotSigned>` |
/// | another signature (wrong secret, a header, path or query changed) | 403 `SignatureDoesNotMatch` with `<StringToSign>` and `<CanonicalRequest>` |
/// | a body whose SHA-256 is not `x-amz-content-sha256` (unless `UNSIGNED-PAYLOAD`) | 400 `XAmzContentSHA256Mismatch` |
///
/// Then a scripted fault (``injectS3Fault(_:times:bucket:key:operation:method:partNumber:)``), if
/// one matches, answers instead of the operation. The operations (``S3ServerOperation``), in memory:
/// ListBuckets; Create (`LocationConstraint` sets its region), Head and Delete Bucket;
/// ListObjectsV2 (`prefix`, `delimiter`, `max-keys`, `start-after`, `continuation-token`,
/// `encoding-type=url`);
/// Put (body, `Content-Type`, `x-amz-meta-*`; `ETag` the quoted MD5), Get and Head (with a
/// single `Range`), Delete and Copy Object (`x-amz-copy-source`, `x-amz-metadata-directive`);
/// multipart uploads (Create, UploadPart, Complete with S3's 5 MiB minimum part, Abort). A missing
/// bucket or key gets 404 `NoSuchBucket` or `NoSuchKey`. Every answer carries `x-amz-request-id`.
///
/// ```swift
/// let server = try TestServer()
/// server.addS3Credentials(accessKey: "AKIDEXAMPLE", secretAccessKey: "secret")
/// server.createS3Bucket("photos", region: "eu-west-1")
/// server.injectS3Fault(.internalError, times: 1, bucket: "photos", key: "cat.jpg", operation: .putObject)
/// // PUT server.s3URL(bucket: "photos", key: "cat.jpg") signed for eu-west-1: a 500, then a 200.
/// ```
///
/// The service's state lasts as long as the server; ``resetRecords()`` leaves it alone.
extension TestServer {
    /// The service's endpoint: `http://127.0.0.1:<port>`, the same as ``baseURL``.
    public var s3Endpoint: URL { baseURL }

    /// The path-style URL of `key` in `bucket` (or of the bucket with `key` nil), each segment of
    /// the key percent-encoded as SigV4 signs it (RFC 3986's unreserved characters kept), `/` kept.
    public func s3URL(bucket: String, key: String? = nil) -> URL {
        let encodedKey = key.map {
            "/"
                + $0.split(separator: "/", omittingEmptySubsequences: false).map { PercentCoding.encode(String($0)) }
                .joined(separator: "/")
        }
        return url(path: "/" + PercentCoding.encode(bucket) + (encodedKey ?? ""))
    }

    /// Lets requests signed with this access key and secret in; with `sessionToken` (temporary
    /// credentials) they must also send it in `x-amz-security-token` (or `X-Amz-Security-Token`).
    /// Turns the S3 service on. Adding a key again replaces its secret and token.
    public func addS3Credentials(accessKey: String, secretAccessKey: String, sessionToken: String? = nil) {
        core.withS3 {
            $0.credentials[accessKey] = S3Store.Credential(secretAccessKey: secretAccessKey, sessionToken: sessionToken)
        }
    }

    /// Makes an empty bucket in `region`, answering requests signed for another region in
    /// `wrongRegionStyle`. Turns the S3 service on. A bucket already there is emptied and replaced.
    ///
    /// `name` must not be the first segment of a ``Route``'s path (`echo`, `status`, `bytes`, …),
    /// which the route would take.
    public func createS3Bucket(
        _ name: String, region: String = "us-east-1",
        wrongRegionStyle: S3WrongRegionStyle = .authorizationHeaderMalformed
    ) {
        precondition(
            !name.isEmpty && !name.contains("/") && !RouteRegistry.isRouteSegment(name),
            "\(name) is not a bucket name the S3 service can serve: a route takes paths starting with it")
        core.withS3 { store in
            store.buckets[name] = S3Store.Bucket(
                region: region, wrongRegionStyle: wrongRegionStyle, creationDate: store.now)
        }
    }

    /// Stores an object directly, as a PutObject would (ETag the quoted MD5 of `body`).
    /// - Precondition: the bucket exists.
    public func putS3Object(
        _ body: Data, bucket: String, key: String, contentType: String? = nil, metadata: [String: String] = [:]
    ) {
        core.withS3 { store in
            precondition(store.buckets[bucket] != nil, "no S3 bucket \(bucket); createS3Bucket first")
            let headers =
                (contentType.map { [HeaderField(name: "Content-Type", value: $0)] } ?? [])
                + metadata.map { HeaderField(name: "x-amz-meta-" + $0.key, value: $0.value) }
            let object = store.stored(body, headers: headers, eTag: S3Store.eTag(of: body))
            store.buckets[bucket]?.objects[key] = object
        }
    }

    /// The object stored under `key` in `bucket`, or nil.
    public func s3Object(bucket: String, key: String) -> S3StoredObject? {
        core.withS3 { $0.buckets[bucket]?.objects[key] }
    }

    /// The keys in `bucket`, sorted by their UTF-8 bytes as S3 lists them; empty for no bucket.
    public func s3Keys(bucket: String) -> [String] {
        core.withS3 { store in
            (store.buckets[bucket]?.objects.keys).map { $0.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } } ?? []
        }
    }

    /// The names of the buckets, sorted.
    public var s3Buckets: [String] {
        core.withS3 { $0.buckets.keys.sorted() }
    }

    /// The upload IDs of multipart uploads begun in `bucket` and neither completed nor aborted.
    public func s3MultipartUploads(bucket: String) -> [String] {
        core.withS3 { ($0.buckets[bucket]?.uploads.keys).map { $0.sorted() } ?? [] }
    }

    /// Scripts a fault: the next `times` requests that match answer with `fault` instead of doing
    /// what they ask (they still have to pass the signature checks first).
    ///
    /// A request matches when it names `bucket` and `key` (nil: the bucket itself, e.g. a listing),
    /// and each of `operation`, `method` and `partNumber` that is given. Faults are used in the
    /// order they were scripted, so a 500 then a 503 for one key is two calls.
    /// - Parameter times: how many answers (at least 1).
    public func injectS3Fault(
        _ fault: S3Fault, times: Int = 1, bucket: String, key: String? = nil, operation: S3ServerOperation? = nil,
        method: String? = nil, partNumber: Int? = nil
    ) {
        precondition(times >= 1, "a fault answers at least once")
        core.withS3 {
            $0.faults.append(
                S3Store.FaultRule(
                    fault: fault, remaining: times, bucket: bucket, key: key, operation: operation, method: method,
                    partNumber: partNumber))
        }
    }

    /// Answers scripted with ``injectS3Fault(_:times:bucket:key:operation:method:partNumber:)`` not
    /// yet given.
    public var s3FaultsRemaining: Int {
        core.withS3 { $0.faults.reduce(0) { $0 + $1.remaining } }
    }

    /// Seconds the S3 service's clock is ahead of this machine's (negative: behind); 0 at first.
    /// Its `RequestTimeTooSkewed` check, presigned URLs' expiry, `Date` headers and stored
    /// objects' times follow it, so a client's clock can be made skewed without changing it.
    public var s3ClockOffset: TimeInterval {
        get { core.withS3 { $0.clockOffset } }
        set { core.withS3 { $0.clockOffset = newValue } }
    }

    /// The complete requests received for `key` in `bucket` (nil: the bucket itself), in order,
    /// whatever their query: to count a client's attempts and see what each sent.
    public func s3Requests(bucket: String, key: String? = nil) -> [RecordedRequest] {
        recordedRequests.filter { record in
            let call = S3Call(method: record.method, target: record.target, headers: record.headers)
            return call.bucket == bucket && call.key == key
        }
    }
}
