/// Hears about a request's life. Every method has a default that does nothing.
///
/// Called on the request's callback queue (asynchronous requests: the request's
/// `callbackQueue`, or its `NetworkQueue`'s), or on the thread that called `startSynchronous()`.
/// A request holds its delegate weakly. A `@MainActor` type conforms with `@preconcurrency`.
public protocol HTTPRequestDelegate: AnyObject {
    /// An attempt started: once per attempt (each redirect hop, auth retry and timeout retry).
    func requestStarted(_ request: HTTPRequest)
    /// A response's headers arrived (once per attempt that got a response).
    func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders)
    /// The request is about to follow a redirect; called before the next response's headers.
    func requestRedirected(_ request: HTTPRequest)
    /// The request finished: any HTTP status counts, a 404 included. Exactly once, never
    /// together with `requestFailed(_:)`.
    func requestFinished(_ request: HTTPRequest)
    /// The request failed (its `error` says why), a cancel included. Exactly once.
    func requestFailed(_ request: HTTPRequest)
}

extension HTTPRequestDelegate {
    /// Does nothing: the default.
    public func requestStarted(_ request: HTTPRequest) {}
    /// Does nothing: the default.
    public func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {}
    /// Does nothing: the default.
    public func requestRedirected(_ request: HTTPRequest) {}
    /// Does nothing: the default.
    public func requestFinished(_ request: HTTPRequest) {}
    /// Does nothing: the default.
    public func requestFailed(_ request: HTTPRequest) {}
}
