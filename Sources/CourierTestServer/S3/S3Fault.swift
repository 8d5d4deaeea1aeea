/// An S3 error the ``TestServer``'s S3 service answers instead of doing what a request asks, as
/// scripted with ``TestServer/injectS3Fault(_:times:bucket:key:operation:method:partNumber:)``.
///
/// The answer is an S3 `<Error>` document (`Code`, `Message`, `RequestId`, `Resource`) with
/// ``status``; with status 200 it is the "200 OK carrying an error" that S3's CopyObject and
/// CompleteMultipartUpload can send once they have started answering.
public struct S3Fault: Sendable, Hashable {
    /// The HTTP status of the answer.
    public let status: Int
    /// The error's `<Code>`, e.g. `InternalError`.
    public let code: String
    /// The error's `<Message>`.
    public let message: String

    /// A fault answering `status` with an `<Error>` of `code` and `message`.
    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// `500 InternalError`, S3's answer when it failed and the request may be retried.
    public static let internalError = S3Fault(
        status: 500, code: "InternalError", message: "We encountered an internal error. Please try again.")

    /// `503 SlowDown`, S3's answer when a client sends too many requests.
    public static let slowDown = S3Fault(status: 503, code: "SlowDown", message: "Please reduce your request rate.")

    /// `200 OK` whose body is an `<Error>` (`InternalError` unless told otherwise), as S3's CopyObject
    /// and CompleteMultipartUpload send when they fail after answering 200.
    public static func errorIn200(
        code: String = "InternalError", message: String = "We encountered an internal error. Please try again."
    ) -> S3Fault {
        S3Fault(status: 200, code: code, message: message)
    }
}

/// How a ``TestServer`` S3 bucket answers a request signed for a region other than its own, as
/// set with ``TestServer/createS3Bucket(_:region:wrongRegionStyle:)``. Both carry the bucket's
/// region in the `x-amz-bucket-region` header.
public enum S3WrongRegionStyle: Sendable, Hashable {
    /// `400 AuthorizationHeaderMalformed` (`AuthorizationQueryParametersError` for a presigned
    /// URL), with the right region in `<Region>`: S3's answer for a request signed for the wrong
    /// region at the right endpoint.
    case authorizationHeaderMalformed
    /// `301 PermanentRedirect` with `<Endpoint>` and `<Bucket>`: S3's answer at another
    /// region's endpoint.
    case permanentRedirect
}

/// The S3 operations the ``TestServer``'s S3 service performs, as a request is classified for
/// fault matching (``TestServer/injectS3Fault(_:times:bucket:key:operation:method:partNumber:)``).
public enum S3ServerOperation: String, Sendable, Hashable, CaseIterable {
    /// `GET /`: ListBuckets.
    case listBuckets
    /// `PUT /BUCKET`: CreateBucket.
    case createBucket
    /// `DELETE /BUCKET`: DeleteBucket.
    case deleteBucket
    /// `HEAD /BUCKET`: HeadBucket.
    case headBucket
    /// `GET /BUCKET?list-type=2`: ListObjectsV2.
    case listObjects
    /// `PUT /BUCKET/KEY`: PutObject.
    case putObject
    /// `PUT /BUCKET/KEY` with `x-amz-copy-source`: CopyObject.
    case copyObject
    /// `GET /BUCKET/KEY`: GetObject.
    case getObject
    /// `HEAD /BUCKET/KEY`: HeadObject.
    case headObject
    /// `DELETE /BUCKET/KEY`: DeleteObject.
    case deleteObject
    /// `POST /BUCKET/KEY?uploads`: CreateMultipartUpload.
    case createMultipartUpload
    /// `PUT /BUCKET/KEY?partNumber=N&uploadId=ID`: UploadPart.
    case uploadPart
    /// `POST /BUCKET/KEY?uploadId=ID`: CompleteMultipartUpload.
    case completeMultipartUpload
    /// `DELETE /BUCKET/KEY?uploadId=ID`: AbortMultipartUpload.
    case abortMultipartUpload
}
