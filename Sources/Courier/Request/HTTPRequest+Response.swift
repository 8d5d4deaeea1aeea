import Foundation

/// What the server answered. Readable from any thread; complete once the request finished.
extension HTTPRequest {
    /// Why the request failed, or nil. An HTTP 404 or 500 is not an error.
    public var error: HTTPRequestError? { read(\.core.error) }

    /// The status code of the last response (0 before one arrived).
    public var responseStatusCode: Int { read(\.response.statusCode) }

    /// The whole status line of the last response: "HTTP/1.1 404 Not Found".
    public var responseStatusMessage: String? { read(\.response.statusLine) }

    /// The header fields of the last response, in order, with the server's spelling.
    public var responseHeaders: HTTPHeaders { state.withLock { $0.response.headers } }

    /// The body as received (compressed, if it came so and inflation waits), or nil when none
    /// was kept (before completion, a HEAD request, a download). An empty body is empty data.
    public var rawResponseData: Data? { read(\.response.body) }

    /// The body, inflated if it came compressed, or nil when none was kept (or, for a body kept
    /// compressed, when it cannot be inflated within `HTTPRequest.maxInflatedBytes`).
    public func responseData() -> Data? {
        let (response, lazily) = state.withLock { ($0.response, $0.config.shouldWaitToInflateCompressedResponses) }
        return Self.inflatedBody(response, lazily: lazily)
    }

    /// The body decoded with `responseEncoding`, or nil when there is no body or it is not valid
    /// in that encoding.
    public func responseString() -> String? {
        let encoding = responseEncoding
        guard let body = responseData() else { return nil }
        return String(data: body, encoding: encoding)
    }

    /// The charset the response names in its Content-Type, else the one its body declares (a
    /// WebPageRequest's page: a byte-order mark, `<meta charset>`), else `defaultResponseEncoding`.
    public var responseEncoding: String.Encoding {
        state.withLock { Self.encoding(for: $0) }
    }

    private static func encoding(for state: RequestState) -> String.Encoding {
        if let contentType = state.response.headerBlock.value(of: "Content-Type"),
            let charset = ContentType.charset(in: contentType),
            let encoding = String.Encoding(ianaCharsetName: charset)
        {
            return encoding
        }
        return state.response.declaredEncoding ?? state.config.defaultResponseEncoding
    }

    /// The response's Content-Length, or the bytes read when it gave none.
    public var contentLength: Int64 { read(\.response.contentLength) }

    /// Body bytes received by the current or last attempt, as they arrive (whether or not anyone
    /// listens for progress). Any thread.
    public var totalBytesRead: Int64 {
        state.withLock { $0.core.transfer?.bytesReceived ?? $0.response.totalBytesRead }
    }

    /// Body bytes sent by the current or last attempt, as they go (whether or not anyone listens
    /// for progress). Any thread.
    public var totalBytesSent: Int64 {
        state.withLock { $0.core.transfer?.uploadOffset ?? $0.response.totalBytesSent }
    }

    /// Where the last attempt's time went, as libcurl measured it.
    public var metrics: RequestMetrics { read(\.response.metrics) }
}
