import Foundation

/// ASIS3BucketRequest: lists a bucket's objects with ListObjectsV2, a page at a time, or creates
/// or deletes a bucket.
///
/// ```swift
/// var page: S3BucketRequest? = S3BucketRequest(bucket: "photos")
/// page?.prefix = "2024/"
/// while let request = page {
///     request.startSynchronous()
///     for object in request.objects { print(object.key, object.size) }
///     page = request.nextPageRequest()
/// }
/// ```
///
/// `@unchecked Sendable`: as S3Request, plus `listing`, which its own lock guards (taken alone).
open class S3BucketRequest: S3Request, @unchecked Sendable {
    final let listing = Locked(S3ListingState())

    /// A request for `url`; `init(bucket:)` is the one to use (this is what `copy()` calls).
    public required init(url: URL) {
        super.init(url: url)
    }

    /// A listing of `bucket`'s objects (ListObjectsV2).
    public required convenience init(bucket: String) {
        let addressed = S3ObjectRequest.addressed(bucket: bucket, key: "")
        self.init(url: addressed?.url ?? S3ObjectRequest.fallbackURL)
        listing.withLock { $0.bucket = bucket }
    }

    /// Creates `bucket`, in this request's `region` (a LocationConstraint is sent outside
    /// us-east-1, where S3 wants none).
    public class func create(bucket: String) -> Self {
        let request = self.init(bucket: bucket)
        request.requestMethod = "PUT"
        request.listing.withLock { $0.operation = .create }
        return request
    }

    /// Deletes `bucket`, which must be empty.
    public class func delete(bucket: String) -> Self {
        let request = self.init(bucket: bucket)
        request.requestMethod = "DELETE"
        request.listing.withLock { $0.operation = .delete }
        return request
    }

    // MARK: - What to list

    /// The bucket.
    public var bucket: String {
        get { listing.withLock { $0.bucket } }
        set { listing.withLock { $0.bucket = newValue } }
    }

    /// Only keys that start with this.
    public var prefix: String? {
        get { listing.withLock { $0.prefix } }
        set { listing.withLock { $0.prefix = newValue } }
    }

    /// Keys with this after the prefix are rolled up into `commonPrefixes` ("/" lists a folder).
    public var delimiter: String? {
        get { listing.withLock { $0.delimiter } }
        set { listing.withLock { $0.delimiter = newValue } }
    }

    /// At most this many keys in a page (`max-keys`; the service's limit, 1,000, when nil).
    public var maxResultCount: Int? {
        get { listing.withLock { $0.maxResultCount } }
        set { listing.withLock { $0.maxResultCount = newValue } }
    }

    /// Only keys after this one.
    public var startAfter: String? {
        get { listing.withLock { $0.startAfter } }
        set { listing.withLock { $0.startAfter = newValue } }
    }

    /// The page to fetch: the last page's `nextContinuationToken`.
    public var continuationToken: String? {
        get { listing.withLock { $0.continuationToken } }
        set { listing.withLock { $0.continuationToken = newValue } }
    }

    // MARK: - What was listed

    /// The page's objects, once the request finished.
    public var objects: [S3BucketObject] { listing.withLock { $0.objects } }
    /// The page's rolled-up prefixes (with a `delimiter`).
    public var commonPrefixes: [String] { listing.withLock { $0.commonPrefixes } }
    /// Whether more pages follow.
    public var isTruncated: Bool { listing.withLock { $0.isTruncated } }
    /// The token for the next page.
    public var nextContinuationToken: String? { listing.withLock { $0.nextContinuationToken } }

    /// A request for the next page, configured as this one (credentials, endpoint, filters), or
    /// nil on the last page.
    public func nextPageRequest() -> Self? {
        guard listing.withLock({ $0.isTruncated }), let token = nextContinuationToken else { return nil }
        let next = copy()
        next.listing.withLock { $0.continuationToken = token }
        return next
    }

    // MARK: - S3Request

    override func operation() -> S3Operation {
        let settings = listing.withLock { $0 }
        var operation = S3Operation(bucket: settings.bucket)
        switch settings.operation {
        case .list:
            operation.readsSuccessfulResponse = true
            var parameters: [(String, String)] = [("list-type", "2")]
            if let token = settings.continuationToken { parameters.append(("continuation-token", token)) }
            if let delimiter = settings.delimiter { parameters.append(("delimiter", delimiter)) }
            if let count = settings.maxResultCount { parameters.append(("max-keys", String(count))) }
            if let prefix = settings.prefix { parameters.append(("prefix", prefix)) }
            if let startAfter = settings.startAfter { parameters.append(("start-after", startAfter)) }
            operation.query = parameters.map { AWSURIEncoding.encode($0.0) + "=" + AWSURIEncoding.encode($0.1) }
                .joined(separator: "&")
        case .create:
            operation.takesAccessPolicy = true
            let region = s3.withLock { $0.run.regionOverride ?? $0.settings.region }
            if region != "us-east-1" {
                operation.body = Data(
                    ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                        + "<LocationConstraint>\(region)</LocationConstraint></CreateBucketConfiguration>").utf8)
                operation.headers["Content-Type"] = "application/xml"
            }
        case .delete:
            break
        }
        return operation
    }

    override func responseAccepted(body: Data?, headers: HTTPHeaders) throws(HTTPRequestError) {
        let (bucket, kind) = listing.withLock { ($0.bucket, $0.operation) }
        guard kind == .list, let body else { return }
        let document: S3XMLElement
        do {
            document = try S3XMLElement.parse(body)
        } catch {
            throw HTTPRequestError(
                type: .serviceError, message: "The listing of \(bucket) cannot be read: \(error)", url: url)
        }
        guard document.name == "ListBucketResult" else {
            throw HTTPRequestError(
                type: .serviceError, message: "The listing of \(bucket) is a <\(document.name)>, not a ListBucketResult",
                url: url)
        }
        let objects = document.children("Contents").map { S3BucketObject(listed: $0, bucket: bucket) }
        let prefixes = document.children("CommonPrefixes").compactMap { $0.text("Prefix") }
        let truncated = document.text("IsTruncated") == "true"
        let token = document.text("NextContinuationToken")
        listing.withLock {
            $0.objects = objects
            $0.commonPrefixes = prefixes
            $0.isTruncated = truncated
            $0.nextContinuationToken = token
        }
    }

    /// Copies S3Request's configuration, then what to list (bucket, prefix, delimiter, page size,
    /// start and continuation token) into `copy`; not the page's results.
    open override func copyConfiguration(into copy: HTTPRequest) {
        super.copyConfiguration(into: copy)
        guard let copy = copy as? S3BucketRequest else { return }
        let settings = listing.withLock { $0 }
        copy.listing.withLock {
            $0.bucket = settings.bucket
            $0.operation = settings.operation
            $0.prefix = settings.prefix
            $0.delimiter = settings.delimiter
            $0.maxResultCount = settings.maxResultCount
            $0.startAfter = settings.startAfter
            $0.continuationToken = settings.continuationToken
        }
    }
}

/// What an S3BucketRequest asks for and what its page held.
struct S3ListingState: Sendable {
    enum Operation: Sendable { case list, create, delete }
    var bucket = ""
    var operation = Operation.list
    var prefix: String?
    var delimiter: String?
    var maxResultCount: Int?
    var startAfter: String?
    var continuationToken: String?
    var objects: [S3BucketObject] = []
    var commonPrefixes: [String] = []
    var isTruncated = false
    var nextContinuationToken: String?
}
