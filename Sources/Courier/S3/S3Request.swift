import Foundation

/// ASIS3Request: a request to Amazon S3 or a service that speaks its protocol (MinIO, Ceph, R2, a
/// local server), signed with AWS Signature Version 4 (or ASI's Version 2 for old servers).
///
/// Use its subclasses: `S3ObjectRequest` (get, put, head, delete, copy an object),
/// `S3BucketRequest` (list, create, delete a bucket) and `S3ServiceRequest` (list buckets). Each
/// works out its URL from the bucket, key, `endpoint`, `region` and `addressingStyle` and signs
/// itself afresh before every attempt; `url` shows the last one.
///
/// ```swift
/// let request = S3ObjectRequest(bucket: "photos", key: "2024/cat.jpg")
/// request.endpoint = URL(string: "http://127.0.0.1:9000")  // MinIO; nil for AWS
/// request.downloadDestinationPath = "/tmp/cat.jpg"
/// request.startSynchronous()
/// if let problem = request.s3Error { print(problem.code) }  // "NoSuchKey", …
/// ```
///
/// An `<Error>` answer fails the request with `.serviceError` (its `s3Error` says which), and so
/// does a 200 whose body is one where S3 sends those (CopyObject, CompleteMultipartUpload). A wrong
/// region is retried once, signed for the region the service names; RequestTimeTooSkewed once, on
/// the service's clock; a 500 or 503 (SlowDown) up to 3 times, with a backoff that doubles from
/// 0.2 s. Redirects are not followed: S3's are errors of their own, answered above.
///
/// Without credentials (none set here, on the class, or in the environment) requests go unsigned,
/// as anonymous requests for public objects do.
///
/// `@unchecked Sendable`: as HTTPRequest, plus `s3`, which its own lock guards. That lock is
/// never held with the request's: each is taken alone.
open class S3Request: HTTPRequest, @unchecked Sendable {
    /// The S3 settings and what the request learns as it runs.
    final let s3: Locked<S3State>

    /// A request to `url`, signed for S3. Its subclasses' initializers name a bucket and key
    /// instead, from which each attempt makes its URL; this one is what `copy()` calls.
    public required init(url: URL) {
        s3 = Locked(S3State())
        super.init(url: url)
        state.withLock {
            $0.config.signsEachAttempt = true
            $0.config.reviewsResponses = true
            $0.config.shouldRedirect = false
        }
    }

    // MARK: - Credentials

    /// The access key ID; nil: `S3Request.sharedAccessKey`, then `AWS_ACCESS_KEY_ID`.
    public var accessKey: String? {
        get { s3.withLock { $0.settings.accessKey } }
        set { s3.withLock { $0.settings.accessKey = newValue } }
    }

    /// The secret access key; nil: `S3Request.sharedSecretAccessKey`, then `AWS_SECRET_ACCESS_KEY`.
    /// Never logged.
    public var secretAccessKey: String? {
        get { s3.withLock { $0.settings.secretAccessKey } }
        set { s3.withLock { $0.settings.secretAccessKey = newValue } }
    }

    /// Temporary credentials' token, sent as `x-amz-security-token` and signed; nil:
    /// `S3Request.sharedSessionToken`, then `AWS_SESSION_TOKEN`.
    public var sessionToken: String? {
        get { s3.withLock { $0.settings.sessionToken } }
        set { s3.withLock { $0.settings.sessionToken = newValue } }
    }

    // MARK: - Where

    /// The region signed for, and for AWS the endpoint's (`s3.<region>.amazonaws.com`); from
    /// `S3Request.defaultRegion` when the request is made.
    public var region: String {
        get { s3.withLock { $0.settings.region } }
        set { s3.withLock { $0.settings.region = newValue } }
    }

    /// The service's URL (`http://127.0.0.1:9000` for a local MinIO, `https://<account>.r2.cloudflarestorage.com`
    /// for R2); nil: AWS. From `S3Request.defaultEndpoint` when the request is made.
    public var endpoint: URL? {
        get { s3.withLock { $0.settings.endpoint } }
        set { s3.withLock { $0.settings.endpoint = newValue } }
    }

    /// Whether the bucket goes in the host name or the path (`.automatic` by default).
    public var addressingStyle: S3AddressingStyle {
        get { s3.withLock { $0.settings.addressingStyle } }
        set { s3.withLock { $0.settings.addressingStyle = newValue } }
    }

    /// The scheme for AWS's endpoint: "https" (ASI's was http). A custom `endpoint` has its own.
    public var requestScheme: String {
        get { s3.withLock { $0.settings.requestScheme } }
        set { s3.withLock { $0.settings.requestScheme = newValue } }
    }

    // MARK: - Signing

    /// `.v4` (the default) or ASI's `.v2` for old servers.
    public var signatureVersion: S3SignatureVersion {
        get { s3.withLock { $0.settings.signatureVersion } }
        set { s3.withLock { $0.settings.signatureVersion = newValue } }
    }

    /// Whether a Version 4 signature covers the body (`.signed`, the default: a file body is read
    /// once to hash it) or not (`.unsigned`).
    public var payloadSigning: S3PayloadSigning {
        get { s3.withLock { $0.settings.payloadSigning } }
        set { s3.withLock { $0.settings.payloadSigning = newValue } }
    }

    /// The moment to sign for; nil (the default): now, at each attempt (ASI's `setDate:`). The
    /// service refuses a signature more than 15 minutes from its clock.
    public var date: Date? {
        get { s3.withLock { $0.settings.date } }
        set { s3.withLock { $0.settings.date = newValue } }
    }

    /// A canned ACL sent as `x-amz-acl`; nil: none (the bucket's default applies).
    public var accessPolicy: S3AccessPolicy? {
        get { s3.withLock { $0.settings.accessPolicy } }
        set { s3.withLock { $0.settings.accessPolicy = newValue } }
    }

    /// The service's error, once the request failed with one (`.serviceError`); nil otherwise.
    public var s3Error: S3Error? { s3.withLock { $0.run.error } }

    // MARK: - Signing without sending

    /// The headers the request would send now, `Authorization` included, without sending it
    /// (ASI's `buildRequestHeaders`). A file body is read to hash it.
    public func signedRequestHeaders() throws(HTTPRequestError) -> HTTPHeaders {
        try signedAttempt(now: Date()).headers
    }

    /// A presigned URL for this request (query-string authentication): anyone with it can make
    /// the request, without credentials, for `expiresIn` seconds (1 to 604,800, 7 days; a value
    /// outside is taken as the nearest). Its body, if any, is not signed.
    /// - Throws: `internalErrorWhileApplyingCredentials` without credentials, and the URL's own
    ///   errors (an empty bucket name, a bad endpoint).
    public func presignedURL(expiresIn: TimeInterval) throws(HTTPRequestError) -> URL {
        let settings = s3.withLock { $0.settings }
        let operation = operation()
        let target = try addressing(settings).url(bucket: operation.bucket, key: operation.key, query: operation.query)
        guard let credentials = S3Credentials(settings) else {
            throw HTTPRequestError(
                type: .internalErrorWhileApplyingCredentials,
                message: "A presigned URL needs credentials: none were set on the request, on S3Request, or in "
                    + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", url: target)
        }
        let method = requestMethod
        let date = settings.date ?? Date()
        switch settings.signatureVersion {
        case .v4:
            return credentials.v4(region: settings.region).presign(
                method: method, url: target, date: date, expiresIn: expiresIn)
        case .v2:
            let expires = Int(date.timeIntervalSince1970) + AWSSignatureV4.presignedLifetime(expiresIn)
            let resource = AWSSignatureV2.canonicalizedResource(
                bucket: usesVirtualHost(settings, operation) ? operation.bucket : nil, url: target)
            return AWSSignatureV2(accessKey: credentials.accessKey, secretAccessKey: credentials.secretAccessKey)
                .presign(method: method, url: target, resource: resource, expires: expires,
                    sessionToken: credentials.sessionToken)
        }
    }

    // MARK: - HTTPRequest's hooks (S3Request+Signing.swift)

    override func signAttempt() throws(HTTPRequestError) { try signForAttempt() }
    override func reviewResponse() -> ResponseReview { reviewS3Response() }

    // MARK: - What subclasses describe

    /// The S3 operation this request makes: its bucket, key, query and the headers its class sets.
    /// The service itself (list buckets) here; each subclass describes its own.
    func operation() -> S3Operation { S3Operation() }

    /// Called when a response stands (no error), off the engine thread, before the request's
    /// callbacks: a subclass reads its results (a listing, an object's metadata). Throwing fails
    /// the request (a listing that cannot be read).
    func responseAccepted(body: Data?, headers: HTTPHeaders) throws(HTTPRequestError) {}

    // MARK: - Copying

    /// Copies HTTPRequest's configuration, then the S3 settings (credentials, endpoint, region,
    /// signing, ACL) into `copy`; not what the request learned as it ran.
    open override func copyConfiguration(into copy: HTTPRequest) {
        super.copyConfiguration(into: copy)
        guard let copy = copy as? S3Request else { return }
        let settings = s3.withLock { $0.settings }
        copy.s3.withLock { $0.settings = settings }
    }

    // MARK: - The class's defaults

    /// The access key for requests that set none; nil: `AWS_ACCESS_KEY_ID`.
    public static var sharedAccessKey: String? {
        get { s3ClassSettings.withLock { $0.accessKey } }
        set { s3ClassSettings.withLock { $0.accessKey = newValue } }
    }

    /// The secret for requests that set none; nil: `AWS_SECRET_ACCESS_KEY`.
    public static var sharedSecretAccessKey: String? {
        get { s3ClassSettings.withLock { $0.secretAccessKey } }
        set { s3ClassSettings.withLock { $0.secretAccessKey = newValue } }
    }

    /// The session token for requests that set none; nil: `AWS_SESSION_TOKEN`.
    public static var sharedSessionToken: String? {
        get { s3ClassSettings.withLock { $0.sessionToken } }
        set { s3ClassSettings.withLock { $0.sessionToken = newValue } }
    }

    /// The region new requests start with: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else
    /// "us-east-1", until set.
    public static var defaultRegion: String {
        get { s3ClassSettings.withLock { $0.region } }
        set { s3ClassSettings.withLock { $0.region = newValue } }
    }

    /// The endpoint new requests start with; nil (the default): AWS.
    public static var defaultEndpoint: URL? {
        get { s3ClassSettings.withLock { $0.endpoint } }
        set { s3ClassSettings.withLock { $0.endpoint = newValue } }
    }

    static let s3ClassSettings = Locked(S3ClassSettings())

    /// How long the first retry after a 500 or 503 waits; each one after waits twice as long.
    static let serverErrorBackoff: TimeInterval = 0.2
}

/// What S3Request keeps behind its lock.
struct S3State: Sendable {
    var settings = S3Settings()
    var run = S3Run()
}

/// An S3 request's settings (its public properties).
struct S3Settings: Sendable {
    var accessKey: String?
    var secretAccessKey: String?
    var sessionToken: String?
    var region: String
    var endpoint: URL?
    var addressingStyle = S3AddressingStyle.automatic
    var requestScheme = "https"
    var signatureVersion = S3SignatureVersion.v4
    var payloadSigning = S3PayloadSigning.signed
    var date: Date?
    var accessPolicy: S3AccessPolicy?

    init() {
        (region, endpoint) = S3Request.s3ClassSettings.withLock { ($0.region, $0.endpoint) }
    }
}

/// What an S3 request learns as it runs: its retries, the region and clock the service named,
/// its error, and the last file body's digests (a retry does not read the file again).
struct S3Run: Sendable {
    var policy = S3RetryPolicy()
    var regionOverride: String?
    /// The service's clock minus ours, once a RequestTimeTooSkewed named it.
    var clockOffset: TimeInterval?
    var error: S3Error?
    var fileDigest: S3PayloadDigest.FileDigest?
    /// The last URL worked out, kept for an attempt that goes to the same place.
    var addressed: S3Addressing.Addressed?
}

/// AWS's variables, read once: the environment is copied whole each time it is asked for, and a
/// process's credentials do not change under it.
enum S3Environment {
    static let accessKey = ProcessInfo.processInfo.environment["AWS_ACCESS_KEY_ID"]
    static let secretAccessKey = ProcessInfo.processInfo.environment["AWS_SECRET_ACCESS_KEY"]
    static let sessionToken = ProcessInfo.processInfo.environment["AWS_SESSION_TOKEN"]
}

/// S3Request's class-wide defaults.
struct S3ClassSettings: Sendable {
    var accessKey: String?
    var secretAccessKey: String?
    var sessionToken: String?
    var region: String
    var endpoint: URL?

    init() {
        let environment = ProcessInfo.processInfo.environment
        region = [environment["AWS_REGION"], environment["AWS_DEFAULT_REGION"]].compactMap { $0 }
            .first { !$0.isEmpty } ?? "us-east-1"
    }
}

/// An S3 operation, as a subclass describes it for S3Request to address and sign.
struct S3Operation: Sendable {
    var bucket: String?
    var key: String?
    /// Encoded, without the `?`.
    var query = ""
    /// The headers the class sets (Content-Type, `x-amz-*`), signed with the user's.
    var headers = HTTPHeaders()
    /// A body the class makes (a bucket's LocationConstraint), set before the attempt.
    var body: Data?
    /// S3 may answer this operation with a 200 whose body is an `<Error>` (CopyObject,
    /// CompleteMultipartUpload).
    var answersErrorIn200 = false
    var checksum: S3ChecksumAlgorithm?
    /// The operation stores an object or makes a bucket: `accessPolicy` applies to it.
    var takesAccessPolicy = false
    /// A successful response is read too (a listing), not only an error.
    var readsSuccessfulResponse = false
}

/// The credentials a request signs with: its own, the class's, or the environment's.
struct S3Credentials: Sendable {
    let accessKey: String
    let secretAccessKey: String
    let sessionToken: String?

    /// Nil when no access key and secret are found: the request goes unsigned.
    init?(_ settings: S3Settings) {
        if let key = settings.accessKey, let secret = settings.secretAccessKey, !key.isEmpty, !secret.isEmpty {
            // The request's own: the class's and the environment's are not looked at.
            (accessKey, secretAccessKey, sessionToken) = (key, secret, settings.sessionToken)
            return
        }
        let shared = S3Request.s3ClassSettings.withLock { $0 }
        func first(_ values: String?...) -> String? { values.compactMap { $0 }.first { !$0.isEmpty } }
        guard let key = first(settings.accessKey, shared.accessKey, S3Environment.accessKey),
            let secret = first(settings.secretAccessKey, shared.secretAccessKey, S3Environment.secretAccessKey)
        else { return nil }
        accessKey = key
        secretAccessKey = secret
        sessionToken = first(settings.sessionToken, shared.sessionToken, S3Environment.sessionToken)
    }

    func v4(region: String) -> AWSSignatureV4 {
        AWSSignatureV4(accessKey: accessKey, secretAccessKey: secretAccessKey, sessionToken: sessionToken, region: region)
    }
}
