/// The one error type a request fails with.
///
/// `type` says what kind of failure it was (its number is `code`); `message` says what happened and
/// where; `curlCode` is libcurl's `CURLcode` when libcurl reported the failure; `url` is the URL the
/// request was working on. Bridged to `NSError` in the domain "CourierErrorDomain".
public struct HTTPRequestError: Error, LocalizedError, CustomNSError, CustomStringConvertible {
    /// The kind of failure.
    public let type: NetworkErrorType
    /// libcurl's `CURLcode`, when the failure came from libcurl (7 for a refused connection).
    public let curlCode: Int?
    /// The URL the request was working on when it failed.
    public let url: URL?
    /// What happened, in words: libcurl's own text where there is one.
    public let message: String
    /// The error underneath this one, if any (a file system error, a parsing block's error).
    public let underlyingError: (any Error)?

    /// The error domain of the bridged `NSError`.
    public static let errorDomain = "CourierErrorDomain"

    /// Makes an error; Courier makes these, users rarely need to.
    public init(
        type: NetworkErrorType,
        message: String,
        url: URL? = nil,
        curlCode: Int? = nil,
        underlyingError: (any Error)? = nil
    ) {
        self.type = type
        self.message = message
        self.url = url
        self.curlCode = curlCode
        self.underlyingError = underlyingError
    }

    /// The type's number: ASI's error code.
    public var code: Int { type.rawValue }

    /// True when the request was cancelled, as opposed to failing or timing out.
    public var isCancellation: Bool { type == .requestCancelled }

    /// True when the request failed because it made no progress for `timeOutSeconds`.
    public var isTimeout: Bool { type == .requestTimedOut }

    public var errorCode: Int { code }

    public var errorDescription: String? { description }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }

    /// "<kind>: <message> (<url>)", the URL's password masked ("user:***@host").
    public var description: String {
        var text = type.summary
        if !message.isEmpty, message != type.summary { text += ": " + message }
        if let url { text += " (" + Log.masked(url) + ")" }
        return text
    }
}

extension HTTPRequestError {
    static func cancelled(_ url: URL?) -> HTTPRequestError {
        HTTPRequestError(type: .requestCancelled, message: "The request was cancelled", url: url)
    }
}
