import Foundation

extension NetworkQueue {
    /// The queue its requests call back on, and it calls its delegate on (`.main` unless set).
    /// Set it before adding requests.
    public var callbackQueue: DispatchQueue {
        get { state.withLock { $0.callbackQueue } }
        set { state.withLock { $0.callbackQueue = newValue } }
    }

    /// The object the queue's selectors are performed on (held weakly).
    public var delegate: AnyObject? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Cancel every other request when one fails or is cancelled (true).
    public var shouldCancelAllRequestsOnFailure: Bool {
        get { state.withLock { $0.shouldCancelAllRequestsOnFailure } }
        set { state.withLock { $0.shouldCancelAllRequestsOnFailure = newValue } }
    }

    /// Byte-accurate progress (true) or one step per request (false, the default). Applies to
    /// requests added afterwards.
    public var showAccurateProgress: Bool {
        get { state.withLock { $0.showAccurateProgress } }
        set { state.withLock { $0.showAccurateProgress = newValue } }
    }

    /// Hears the download progress of all the queue's requests (held weakly).
    public var downloadProgressDelegate: (any ProgressDelegate)? {
        get { state.withLock { $0.downloadProgressDelegate } }
        set { state.withLock { $0.downloadProgressDelegate = newValue } }
    }

    /// Hears the upload progress of all the queue's requests (held weakly).
    public var uploadProgressDelegate: (any ProgressDelegate)? {
        get { state.withLock { $0.uploadProgressDelegate } }
        set { state.withLock { $0.uploadProgressDelegate = newValue } }
    }

    /// Bytes (or steps, with simple progress) downloaded by the queue's requests so far.
    public var bytesDownloadedSoFar: Int64 { state.withLock { $0.bytesDownloadedSoFar } }
    /// Bytes (or steps) the queue's requests are expected to download.
    public var totalBytesToDownload: Int64 { state.withLock { $0.totalBytesToDownload } }
    /// Bytes (or steps) uploaded by the queue's requests so far.
    public var bytesUploadedSoFar: Int64 { state.withLock { $0.bytesUploadedSoFar } }
    /// Bytes (or steps) the queue's requests are expected to upload.
    public var totalBytesToUpload: Int64 { state.withLock { $0.totalBytesToUpload } }

    /// Requests added and not yet finished or failed.
    public var requestsCount: Int { state.withLock { $0.requestsCount } }

    /// Requests that finished or failed since the queue was made or last `reset()`.
    public var requestsFinished: Int { state.withLock { $0.requestsFinished } }

    /// True while HEAD probes (accurate progress) have yet to answer: `totalBytesToDownload`
    /// still lacks the sizes of some GETs added before `go()`. A progress bar marks such a total.
    var isLearningDownloadTotal: Bool { state.withLock { $0.unansweredProbes > 0 } }

    /// Requests that have started and not yet finished: at most `maxConcurrentOperationCount`,
    /// plus any cancelled request on its way out. The queue starts its requests itself, so
    /// OperationQueue's `operationCount` and `operations` see only those it handed to the
    /// OperationQueue to wait for their dependencies.
    public var runningRequestsCount: Int { state.withLock { $0.running } }

    /// Yours: never used by the queue.
    public var userInfo: [String: any Sendable]? {
        get { state.withLock { $0.userInfo } }
        set { state.withLock { $0.userInfo = newValue } }
    }

    // MARK: - Selectors

    /// Performed on the delegate when one of the queue's requests starts an attempt.
    public var requestDidStartSelector: (@Sendable (AnyObject, HTTPRequest) -> Void)? {
        get { state.withLock { $0.selectors.requestDidStart } }
        set { state.withLock { $0.selectors.requestDidStart = newValue } }
    }

    /// Performed on the delegate when a request's response headers arrive.
    public var requestDidReceiveResponseHeadersSelector: (@Sendable (AnyObject, HTTPRequest, HTTPHeaders) -> Void)? {
        get { state.withLock { $0.selectors.requestDidReceiveResponseHeaders } }
        set { state.withLock { $0.selectors.requestDidReceiveResponseHeaders = newValue } }
    }

    /// Performed on the delegate when a request is about to follow a redirect.
    public var requestWillRedirectSelector: (@Sendable (AnyObject, HTTPRequest, URL) -> Void)? {
        get { state.withLock { $0.selectors.requestWillRedirect } }
        set { state.withLock { $0.selectors.requestWillRedirect = newValue } }
    }

    /// Performed on the delegate when a request finishes.
    public var requestDidFinishSelector: (@Sendable (AnyObject, HTTPRequest) -> Void)? {
        get { state.withLock { $0.selectors.requestDidFinish } }
        set { state.withLock { $0.selectors.requestDidFinish = newValue } }
    }

    /// Performed on the delegate when a request fails.
    public var requestDidFailSelector: (@Sendable (AnyObject, HTTPRequest) -> Void)? {
        get { state.withLock { $0.selectors.requestDidFail } }
        set { state.withLock { $0.selectors.requestDidFail = newValue } }
    }

    /// Performed on the delegate when a request's host cannot be reached.
    public var requestDidBecomeUnreachableSelector: (@Sendable (AnyObject, HTTPRequest) -> Void)? {
        get { state.withLock { $0.selectors.requestDidBecomeUnreachable } }
        set { state.withLock { $0.selectors.requestDidBecomeUnreachable = newValue } }
    }

    /// Performed on the delegate once the last request is done (finished, failed or cancelled).
    public var queueDidFinishSelector: (@Sendable (AnyObject, NetworkQueue) -> Void)? {
        get { state.withLock { $0.selectors.queueDidFinish } }
        set { state.withLock { $0.selectors.queueDidFinish = newValue } }
    }

    /// `queue.setRequestDidStartSelector(Controller.requestStarted)`
    public func setRequestDidStartSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (HTTPRequest) -> Void) {
        requestDidStartSelector = Self.erase(selector)
    }

    /// `queue.setRequestDidReceiveResponseHeadersSelector(Controller.headersArrived)`
    public func setRequestDidReceiveResponseHeadersSelector<D: AnyObject>(
        _ selector: @escaping @Sendable (D) -> (HTTPRequest, HTTPHeaders) -> Void
    ) {
        requestDidReceiveResponseHeadersSelector = { target, request, headers in
            if let target = target as? D { selector(target)(request, headers) }
        }
    }

    /// `queue.setRequestWillRedirectSelector(Controller.willRedirect)`: the request waits for
    /// `redirect(to:)`.
    public func setRequestWillRedirectSelector<D: AnyObject>(
        _ selector: @escaping @Sendable (D) -> (HTTPRequest, URL) -> Void
    ) {
        requestWillRedirectSelector = { target, request, url in
            // A delegate of another type cannot decide: the request goes on by itself.
            if let target = target as? D { selector(target)(request, url) } else { request.redirect(to: url) }
        }
    }

    /// `queue.setRequestDidFinishSelector(Controller.requestDone)`
    public func setRequestDidFinishSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (HTTPRequest) -> Void)
    {
        requestDidFinishSelector = Self.erase(selector)
    }

    /// `queue.setRequestDidFailSelector(Controller.requestWentWrong)`
    public func setRequestDidFailSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (HTTPRequest) -> Void) {
        requestDidFailSelector = Self.erase(selector)
    }

    /// `queue.setRequestDidBecomeUnreachableSelector(Controller.hostGone)`
    public func setRequestDidBecomeUnreachableSelector<D: AnyObject>(
        _ selector: @escaping @Sendable (D) -> (HTTPRequest) -> Void
    ) {
        requestDidBecomeUnreachableSelector = Self.erase(selector)
    }

    /// `queue.setQueueDidFinishSelector(Controller.queueDone)`, also with a subclass's type.
    public func setQueueDidFinishSelector<D: AnyObject>(_ selector: @escaping @Sendable (D) -> (Self) -> Void) {
        queueDidFinishSelector = { target, queue in
            if let target = target as? D, let queue = queue as? Self { selector(target)(queue) }
        }
    }

    private static func erase<D: AnyObject>(
        _ selector: @escaping @Sendable (D) -> (HTTPRequest) -> Void
    )
        -> QueueSelectors.RequestSelector
    {
        { target, request in
            if let target = target as? D { selector(target)(request) }
        }
    }
}
