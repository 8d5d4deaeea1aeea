import Foundation

/// ASIS3ServiceRequest: lists the buckets the credentials own.
///
/// `@unchecked Sendable`: as S3Request, plus `listed`, which its own lock guards (taken alone).
open class S3ServiceRequest: S3Request, @unchecked Sendable {
    final let listed = Locked<[S3Bucket]>([])

    /// A request for `url`; `init()` is the one to use (this is what `copy()` calls).
    public required init(url: URL) {
        super.init(url: url)
    }

    /// A request for the list of buckets (ListBuckets).
    public convenience init() {
        self.init(url: S3ObjectRequest.addressed(bucket: nil, key: "")?.url ?? S3ObjectRequest.fallbackURL)
    }

    /// The buckets, once the request finished.
    public var buckets: [S3Bucket] { listed.withLock { $0 } }

    override func operation() -> S3Operation {
        var operation = S3Operation()
        operation.readsSuccessfulResponse = true
        return operation
    }

    override func responseAccepted(body: Data?, headers: HTTPHeaders) throws(HTTPRequestError) {
        guard let body else { return }
        guard let document = try? S3XMLElement.parse(body), document.name == "ListAllMyBucketsResult" else {
            throw HTTPRequestError(type: .serviceError, message: "The list of buckets cannot be read", url: url)
        }
        let buckets = (document.child("Buckets")?.children("Bucket") ?? []).map {
            S3Bucket(name: $0.text("Name") ?? "", creationDate: $0.text("CreationDate").flatMap(S3Date.parse))
        }
        listed.withLock { $0 = buckets }
    }
}
