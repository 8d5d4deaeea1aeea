import Foundation

/// One HTTP request: an `Operation` you configure, run synchronously or asynchronously, and hear
/// back from through a delegate, selectors performed on the delegate, or blocks.
///
/// ```swift
/// let request = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
/// request.startSynchronous()
/// if let error = request.error { print(error) } else { print(request.responseString() ?? "") }
/// ```
///
/// Every property may be read and set from any thread; configure a request before starting it.
/// Subclasses, users' too, restate `@unchecked Sendable`.
///
/// `@unchecked Sendable`: all mutable state lives in `state`, read and written only under its lock.
open class HTTPRequest: Operation, @unchecked Sendable {
    let state: Locked<RequestState>

    /// Makes a GET request for `url`. Subclasses override this to set their own defaults.
    public required init(url: URL) {
        let settings = HTTPRequest.classSettings.current
        state = Locked(
            RequestState(url: url, timeOutSeconds: settings.timeOutSeconds, callbackQueue: settings.callbackQueue))
        super.init()
    }

    /// Makes a request from a `URLRequest`, taking over its method, headers, body and timeout.
    public convenience init(urlRequest: URLRequest) {
        self.init(url: urlRequest.url ?? URL(string: "about:blank")!)
        state.withLock { state in
            state.hasNoURL = urlRequest.url == nil
            if let method = urlRequest.httpMethod, method != "GET" || urlRequest.httpBody == nil {
                state.requestMethod = method
                state.methodWasSet = method != "GET"
            }
            for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] { state.requestHeaders[name] = value }
            state.postBody = urlRequest.httpBody
            if urlRequest.timeoutInterval > 0 { state.timeOutSeconds = urlRequest.timeoutInterval }
        }
    }

    // MARK: - Reading and writing state

    func read<Value>(_ keyPath: KeyPath<RequestState, Value>) -> Value {
        state.withLock { $0[keyPath: keyPath] }
    }

    func write<Value>(_ keyPath: WritableKeyPath<RequestState, Value>, _ value: Value) {
        state.withLock { $0[keyPath: keyPath] = value }
    }

    // MARK: - Configuration

    /// The URL. After redirects, the final URL; `originalURL` keeps the first.
    public var url: URL {
        get { read(\.url) }
        set { write(\.url, newValue) }
    }

    /// The first URL the request used, set when it starts and kept across redirects.
    public var originalURL: URL? { read(\.originalURL) }

    /// The verb, "GET" by default. If it was never set, a body makes it "POST" when the request
    /// starts; a verb you set is always kept.
    public var requestMethod: String {
        get { read(\.requestMethod) }
        set {
            state.withLock {
                $0.requestMethod = newValue
                $0.methodWasSet = true
            }
        }
    }

    /// Headers to send, in order. Courier adds User-Agent (unless present), Host,
    /// Content-Length and the like itself.
    public var requestHeaders: HTTPHeaders {
        get { read(\.requestHeaders) }
        set { write(\.requestHeaders, newValue) }
    }

    /// Sets (replacing) one request header.
    public func addRequestHeader(_ name: String, value: String) {
        state.withLock { $0.requestHeaders[name] = value }
    }

    /// This request's User-Agent, used unless `requestHeaders` has one; nil falls back to
    /// `HTTPRequest.defaultUserAgentString`.
    public var userAgentString: String? {
        get { read(\.userAgentString) }
        set { write(\.userAgentString, newValue) }
    }

    /// Sends HTTP/1.0 instead of HTTP/1.1 (false).
    public var useHTTPVersionOne: Bool {
        get { read(\.useHTTPVersionOne) }
        set { write(\.useHTTPVersionOne, newValue) }
    }

    /// The body to send from memory, or nil for none.
    public var postBody: Data? {
        get { read(\.postBody) }
        set { write(\.postBody, newValue) }
    }

    /// Appends bytes to `postBody`.
    public func appendPostData(_ data: Data) {
        state.withLock { state in
            if state.postBody == nil { state.postBody = Data() }
            state.postBody!.append(data)
        }
    }

    /// The number of body bytes the request will send.
    public var postLength: Int64 { Int64(read(\.postBody)?.count ?? 0) }

    /// Seconds without any progress (connecting, sending or receiving) after which the request
    /// fails with `requestTimedOut`; fractions work; 0 or less waits forever. Defaults to
    /// `HTTPRequest.defaultTimeOutSeconds` (10) at creation.
    public var timeOutSeconds: TimeInterval {
        get { read(\.timeOutSeconds) }
        set { write(\.timeOutSeconds, newValue) }
    }

    /// Yours: never sent, kept by `copy()`.
    public var userInfo: [String: any Sendable]? {
        get { read(\.userInfo) }
        set { write(\.userInfo, newValue) }
    }

    /// Yours: never sent.
    public var tag: Int {
        get { read(\.tag) }
        set { write(\.tag, newValue) }
    }

    /// The queue an asynchronous request calls back on (`HTTPRequest.defaultCallbackQueue`,
    /// the main queue, unless set). A request in a `NetworkQueue` uses the queue's instead; a
    /// synchronous request calls back on the thread that started it.
    public var callbackQueue: DispatchQueue {
        get { read(\.callbackQueue) }
        set { write(\.callbackQueue, newValue) }
    }

    /// The encoding `responseString()` uses when the response names no charset (ISO Latin 1).
    public var defaultResponseEncoding: String.Encoding {
        get { read(\.defaultResponseEncoding) }
        set { write(\.defaultResponseEncoding, newValue) }
    }

    // MARK: - Operation

    /// Always true: a request holds no thread while it waits for the network.
    open override var isAsynchronous: Bool { true }

    open override var isExecuting: Bool { read(\.machine).isExecuting }

    open override var isFinished: Bool { read(\.machine).isFinished }

    /// Starts the request on the calling thread's behalf and returns at once; a queue calls
    /// this. To run a request yourself, use `startSynchronous()` or `startAsynchronous()`.
    open override func start() {
        startOperation()
    }

    /// Cancels the request: it fails with `requestCancelled` and its failure callbacks run
    /// promptly, whether it was executing or still waiting; a request that already finished or
    /// failed is left as it is. Any thread.
    open override func cancel() {
        super.cancel()
        cancelRequest()
    }

    // MARK: - Subclass hooks

    /// Called on the callback thread when an attempt starts. The default notifies the delegate
    /// (or its selector), then the started block. Overrides call `super`.
    open func requestStarted() {
        notifyStarted()
    }

    /// Called on the callback thread when response headers arrive. The default notifies the
    /// delegate (or its selector), then the headers block. Overrides call `super`.
    open func requestReceivedResponseHeaders(_ headers: HTTPHeaders) {
        notifyHeadersReceived(headers)
    }

    /// Called on the callback thread when the request finished. An override parses the response
    /// and then calls `super`, which notifies the delegate (or its selector), then the completion
    /// block. An override may call `failWithError(_:)` instead, to fail the request.
    open func requestFinished() {
        notifyFinished()
    }

    /// Called on the callback thread when the request failed; sets `error`, then notifies the
    /// delegate (or its selector), then the failed block. Overrides call `super`.
    open func failWithError(_ error: HTTPRequestError) {
        notifyFailed(error)
    }

    open override var description: String {
        "<\(type(of: self)) \(read(\.requestMethod)) \(read(\.url).absoluteString)>"
    }
}
