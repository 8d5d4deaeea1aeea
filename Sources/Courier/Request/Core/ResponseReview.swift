import struct Foundation.TimeInterval

/// What a request class that speaks to a service makes of a response before the request finishes
/// (`HTTPRequest.reviewResponse()`; S3Request's rules are `S3RetryPolicy`), or does with it
/// (WebPageRequest fetches the page's resources and rewrites it). A plain HTTPRequest reviews
/// nothing: a 500 is a response like any other.
enum ResponseReview: Sendable {
    /// The response stands: the request finishes with it.
    case accept
    /// The response is the service's error: the request fails with this.
    case fail(HTTPRequestError)
    /// Try again after this many seconds, with the request signed afresh.
    case retry(after: TimeInterval)
}
