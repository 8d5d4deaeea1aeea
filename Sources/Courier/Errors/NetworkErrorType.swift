/// What kind of failure ended a request: ASIHTTPRequest's `ASINetworkErrorType`, with its numbers.
public enum NetworkErrorType: Int, Sendable, Hashable, CaseIterable {
    /// Refused, DNS failure, reset, truncated body, malformed response, TLS failure.
    case connectionFailure = 1
    /// No progress for `timeOutSeconds`, or the connection could not be made in time.
    case requestTimedOut = 2
    /// A 401 or 407 for which no usable credentials were found, or the credentials were wrong.
    case authentication = 3
    /// `cancel()` was called.
    case requestCancelled = 4
    /// No URL, a URL without a host, or a scheme other than http and https.
    case unableToCreateRequest = 5
    /// A header with CR, LF or NUL, or a body or form file that cannot be read.
    case internalErrorWhileBuildingRequest = 6
    /// Credentials could not be applied to the request.
    case internalErrorWhileApplyingCredentials = 7
    /// A download or temporary file could not be written, moved or removed.
    case fileManagement = 8
    /// The request redirected more than five times.
    case tooMuchRedirection = 9
    /// Something unexpected went wrong inside Courier or a subclass.
    case unhandledException = 10
    /// A compressed body could not be inflated, or inflated past its bound.
    case compression = 11
    /// A service such as S3 answered with an error document (`S3Request.s3Error` has its code),
    /// or a WebPageRequest's resource answered an error status (400 or more).
    case serviceError = 12

    /// ASI's description of the failure kind, used as the start of every error message.
    var summary: String {
        switch self {
        case .connectionFailure: "A connection failure occurred"
        case .requestTimedOut: "The request timed out"
        case .authentication: "Authentication needed"
        case .requestCancelled: "The request was cancelled"
        case .unableToCreateRequest: "Unable to create request (bad url?)"
        case .internalErrorWhileBuildingRequest: "Unable to build the request"
        case .internalErrorWhileApplyingCredentials: "Failed to apply credentials to request"
        case .fileManagement: "A file could not be written, moved or removed"
        case .tooMuchRedirection: "The request failed because it redirected too many times"
        case .unhandledException: "An unexpected error occurred"
        case .compression: "The response could not be decompressed"
        case .serviceError: "The service answered with an error"
        }
    }
}
