/// ASI's selectors as closures performed on the delegate, erased to the request's base type.
/// Each wraps an unapplied method reference and checks the delegate's and request's types.
struct RequestSelectors {
    typealias Plain = @Sendable (AnyObject, HTTPRequest) -> Void
    var didStart: Plain?
    var didReceiveResponseHeaders: (@Sendable (AnyObject, HTTPRequest, HTTPHeaders) -> Void)?
    var didFinish: Plain?
    var didFail: Plain?
    /// Returns false when the delegate is not of the selector's type (the request then goes on).
    var willRedirect: (@Sendable (AnyObject, HTTPRequest, URL) -> Bool)?
    var didReceiveData: (@Sendable (AnyObject, HTTPRequest, Data) -> Void)?
    var requestRedirected: Plain?
    var authenticationNeeded: Plain?
    var proxyAuthenticationNeeded: Plain?
}

/// The blocks set on a request, each taking the request first.
struct RequestBlocks {
    typealias Plain = @Sendable (HTTPRequest) -> Void
    /// Bytes moved, and the total expected.
    typealias Bytes = @Sendable (HTTPRequest, Int64, Int64) -> Void
    typealias SizeIncrement = @Sendable (HTTPRequest, Int64) -> Void
    var started: Plain?
    var headersReceived: (@Sendable (HTTPRequest, HTTPHeaders) -> Void)?
    var completion: Plain?
    var failed: Plain?
    var bytesReceived: Bytes?
    var bytesSent: Bytes?
    var downloadSizeIncremented: SizeIncrement?
    var uploadSizeIncremented: SizeIncrement?
    var dataReceived: (@Sendable (HTTPRequest, Data) -> Void)?
    var requestRedirected: Plain?
    var authenticationNeeded: Plain?
    var proxyAuthenticationNeeded: Plain?
}

extension HTTPRequest {
    // MARK: - Delegate

    /// Hears about this request (held weakly). See `HTTPRequestDelegate`.
    public var delegate: (any HTTPRequestDelegate)? {
        get { read(\.delegate) }
        set { state.withLock { $0.delegate = newValue } }
    }

    // MARK: - Selectors

    /// Performs `selector` on the delegate instead of `requestStarted(_:)`, if the delegate is a `D`:
    /// `request.setDidStartSelector(Controller.requestStarted)`.
    public func setDidStartSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self) -> Void) {
        state.withLock { $0.selectors.didStart = Self.erase(selector) }
    }

    /// Performs `selector` on the delegate instead of `request(_:didReceiveResponseHeaders:)`.
    public func setDidReceiveResponseHeadersSelector<D: AnyObject>(
        _ selector: @escaping @Sendable (D) -> (Self, HTTPHeaders) -> Void
    ) {
        state.withLock {
            $0.selectors.didReceiveResponseHeaders = { target, request, headers in
                guard let target = target as? D, let request = request as? Self else { return }
                selector(target)(request, headers)
            }
        }
    }

    /// Performs `selector` on the delegate instead of `requestFinished(_:)`:
    /// `request.setDidFinishSelector(Controller.requestDone)`.
    public func setDidFinishSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self) -> Void) {
        state.withLock { $0.selectors.didFinish = Self.erase(selector) }
    }

    /// Performs `selector` on the delegate instead of `requestFailed(_:)`.
    public func setDidFailSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self) -> Void) {
        state.withLock { $0.selectors.didFail = Self.erase(selector) }
    }

    private static func erase<D: AnyObject>(
        _ selector: @escaping @Sendable (D) -> (Self) -> Void
    )
        -> RequestSelectors.Plain
    {
        { target, request in
            guard let target = target as? D, let request = request as? Self else { return }
            selector(target)(request)
        }
    }

    // MARK: - Blocks

    /// Runs when an attempt starts, after the delegate.
    public func setStartedBlock(_ block: @escaping @Sendable (Self) -> Void) {
        state.withLock { $0.blocks.started = Self.erase(block) }
    }

    /// Runs when response headers arrive, after the delegate.
    public func setHeadersReceivedBlock(_ block: @escaping @Sendable (Self, HTTPHeaders) -> Void) {
        state.withLock {
            $0.blocks.headersReceived = { request, headers in
                guard let request = request as? Self else { return }
                block(request, headers)
            }
        }
    }

    /// Runs when the request finishes, after the delegate.
    public func setCompletionBlock(_ block: @escaping @Sendable (Self) -> Void) {
        state.withLock { $0.blocks.completion = Self.erase(block) }
    }

    /// Runs when the request fails, after the delegate.
    public func setFailedBlock(_ block: @escaping @Sendable (Self) -> Void) {
        state.withLock { $0.blocks.failed = Self.erase(block) }
    }

    private static func erase(_ block: @escaping @Sendable (Self) -> Void) -> RequestBlocks.Plain {
        { request in
            guard let request = request as? Self else { return }
            block(request)
        }
    }
}
