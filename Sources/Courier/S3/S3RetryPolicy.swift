import struct Foundation.Date
import struct Foundation.TimeInterval

/// S3's rules for what a response leads to, as one value per request that remembers which
/// retries it has made (API.md "S3", Errors):
/// - a 2xx without an error document stands;
/// - a wrong region (301 PermanentRedirect, 400 AuthorizationHeaderMalformed or
///   IllegalLocationConstraintException naming another region) is tried once more, signed for
///   the region the service names;
/// - RequestTimeTooSkewed is tried once more on the service's clock;
/// - 500, 503 and SlowDown (even inside a 200) are tried up to `serverErrorRetryLimit` more
///   times, after a backoff that doubles;
/// - anything else fails.
struct S3RetryPolicy: Sendable, Equatable {
    /// How many times a 500 or 503 is tried again.
    static let serverErrorRetryLimit = 3

    private(set) var hasRetriedRegion = false
    private(set) var hasRetriedClock = false
    private(set) var serverErrorRetries = 0

    enum Verdict: Sendable, Equatable {
        case accept
        case fail
        /// Sign again for this region and retry at once.
        case retryInRegion(String)
        /// Sign again with the clock moved by this many seconds (the service's minus ours).
        case retryWithClockOffset(TimeInterval)
        /// Retry after this many seconds.
        case retryAfter(TimeInterval)
    }

    /// What a response with `statusCode` and `error` (nil: no error document where one counts)
    /// leads to. `region`: the one the request was signed for. `now`: our clock, against the
    /// service's in a skew. `backoff`: the first retry's pause, doubled for each one after.
    mutating func verdict(
        statusCode: Int, error: S3Error?, region: String, now: Date, serverDate: Date?, backoff: TimeInterval
    ) -> Verdict {
        guard let error else { return (200..<300).contains(statusCode) ? .accept : .fail }
        if let other = Self.regionNamed(by: error), other != region, !hasRetriedRegion {
            hasRetriedRegion = true
            return .retryInRegion(other)
        }
        if error.code == "RequestTimeTooSkewed", !hasRetriedClock,
            let serverClock = error.serverTime.flatMap(S3Date.parse) ?? serverDate
        {
            hasRetriedClock = true
            return .retryWithClockOffset(serverClock.timeIntervalSince(now))
        }
        if Self.isServerError(statusCode: statusCode, code: error.code), serverErrorRetries < Self.serverErrorRetryLimit {
            let pause = backoff * Double(1 << serverErrorRetries)
            serverErrorRetries += 1
            return .retryAfter(pause)
        }
        return .fail
    }

    /// The region a wrong-region error names, if it is one.
    static func regionNamed(by error: S3Error) -> String? {
        guard let region = error.region, !region.isEmpty else { return nil }
        switch error.code {
        case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException",
            "AuthorizationQueryParametersError":
            return region
        default:
            // A HEAD's 301 or 400 has no document, only the header.
            return error.statusCode == 301 || error.statusCode == 400 ? region : nil
        }
    }

    static func isServerError(statusCode: Int, code: String) -> Bool {
        statusCode == 500 || statusCode == 503
            || ["InternalError", "SlowDown", "ServiceUnavailable", "RequestTimeout"].contains(code)
    }
}
