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
/// `@unchecked Sendable`: all mutable state lives in `state`, a `Locked` value read and written
/// only through `state.withLock`, except `queueSlot`, which only its NetworkQueue's lock guards.
open class HTTPRequest: Operation, @unchecked Sendable {
    /// Everything mutable about the request, behind its lock: `state.withLock { $0.config.url }`.
    final let state: Locked<RequestState>

    /// Where the request sits in its NetworkQueue's list of slot holders (`GrantedSlots`), or -1
    /// while it holds no slot. Read and written only under that queue's lock (a request joins
    /// one queue in its life), so a finishing request finds its slot at once: searching the list
    /// made a storm of 10,000 cancels against 1,000 running requests quadratic (two thirds of
    /// its CPU, `perf record`).
    final var queueSlot = -1

    /// Makes a GET request for `url`. Subclasses override this to set their own defaults.
    public required init(url: URL) {
        let (timeOut, callbackQueue, cache) = HTTPRequest.classSettings.withLock {
            ($0.timeOutSeconds, $0.callbackQueue, $0.downloadCache)
        }
        // Made in place: a state built in a local and then passed in was copied whole (an
        // outlined copy and destroy of RequestState, ~2,700 instructions of a 1 KiB GET).
        state = Locked(
            RequestState(url: url, timeOutSeconds: timeOut, callbackQueue: callbackQueue, downloadCache: cache))
        super.init()
    }

    /// Makes a request from a `URLRequest`, taking over its method, headers, body and timeout.
    public convenience init(urlRequest: URLRequest) {
        self.init(url: urlRequest.url ?? URL(string: "about:blank")!)
        state.withLock { state in
            state.config.hasNoURL = urlRequest.url == nil
            if let method = urlRequest.httpMethod, method != "GET" || urlRequest.httpBody == nil {
                state.config.requestMethod = method
                state.config.methodWasSet = method != "GET"
            }
            for (name, value) in urlRequest.allHTTPHeaderFields ?? [:] { state.config.requestHeaders[name] = value }
            state.config.postBody = urlRequest.httpBody
            if urlRequest.timeoutInterval > 0 { state.config.timeOutSeconds = urlRequest.timeoutInterval }
        }
    }

    // MARK: - Reading and writing state

    // Always inlined: with the key path a literal at the call, the optimizer turns it into a
    // plain field access; a call would project the key path at run time.
    @inline(__always)
    func read<Value>(_ keyPath: KeyPath<RequestState, Value>) -> Value {
        state.withLock { $0[keyPath: keyPath] }
    }

    @inline(__always)
    func write<Value>(_ keyPath: WritableKeyPath<RequestState, Value>, _ value: Value) {
        state.withLock { $0[keyPath: keyPath] = value }
    }

    // MARK: - Configuration

    /// The URL. After redirects, the final URL; `originalURL` keeps the first.
    public var url: URL {
        get { read(\.config.url) }
        set { write(\.config.url, newValue) }
    }

    /// The first URL the request used, set when it starts and kept across redirects.
    public var originalURL: URL? { read(\.originalURL) }

    /// The verb, "GET" by default. If it was never set, a body makes it "POST" when the request
    /// starts; a verb you set is always kept.
    public var requestMethod: String {
        get { read(\.config.requestMethod) }
        set {
            state.withLock {
                $0.config.requestMethod = newValue
                $0.config.methodWasSet = true
            }
        }
    }

    /// Headers to send, in order. Courier adds User-Agent (unless present), Accept-Encoding,
    /// Range, Content-Length and the like itself, for each attempt.
    ///
    /// Once the request has started, reading this also lists what the current (or last) attempt
    /// generated, after your own fields, as ASI's `buildRequestHeaders` did: User-Agent,
    /// Accept-Encoding, Content-Type (a form's), Content-Length, Content-Encoding,
    /// Transfer-Encoding and a resumed download's `Range: bytes=<partial>-`. Not listed: Host,
    /// `Accept: */*` and `Expect` (libcurl's own), and the cookies libcurl's cookie engine sends
    /// from the shared jar; a Cookie header of your own is listed, being yours.
    ///
    /// The generated fields are never stored as yours: `copy()` and a redirect hop start from your
    /// own fields and generate theirs afresh. Writing the list you read back (say
    /// `request.requestHeaders["X-Name"] = "v"` after the start) leaves the generated fields out
    /// of yours again: a field you did not have, with a generated one's name and value, is taken
    /// to be that one. Any thread.
    public var requestHeaders: HTTPHeaders {
        get {
            let (user, generated) = state.withLock { ($0.config.requestHeaders, $0.generatedHeaders) }
            return generated.shown(with: user)
        }
        set {
            state.withLock {
                $0.config.requestHeaders = $0.generatedHeaders.removingShown(
                    from: newValue, user: $0.config.requestHeaders)
            }
        }
    }

    /// Sets (replacing) one request header.
    public func addRequestHeader(_ name: String, value: String) {
        state.withLock { $0.config.requestHeaders[name] = value }
    }

    /// This request's User-Agent, used unless `requestHeaders` has one; nil falls back to
    /// `HTTPRequest.defaultUserAgentString`.
    public var userAgentString: String? {
        get { read(\.config.userAgentString) }
        set { write(\.config.userAgentString, newValue) }
    }

    /// Sends HTTP/1.0 instead of HTTP/1.1 (false).
    public var useHTTPVersionOne: Bool {
        get { read(\.config.useHTTPVersionOne) }
        set { write(\.config.useHTTPVersionOne, newValue) }
    }

    /// The body to send from memory, or nil for none.
    public var postBody: Data? {
        get { read(\.config.postBody) }
        set { write(\.config.postBody, newValue) }
    }

    /// The number of body bytes the request will send: with `shouldCompressRequestBody`, the
    /// gzipped size, as in ASI (a body with files is read through to learn it, on the calling
    /// thread); for a stream of unknown length, or gzipped, 0; for a file that cannot be read, 0.
    public var postLength: Int64 {
        measureCompressedBody()
        return state.withLock { Self.postLength(of: &$0) }
    }

    /// `postLength` under the request's lock (`inout` only to pass the state without a copy).
    /// `measuring` false: a gzipped body not measured yet counts as 0 rather than being read
    /// through under the lock.
    static func postLength(of state: inout RequestState, measuring: Bool = true) -> Int64 {
        guard hasBody(state.config) || state.config.unreadableBodyFile != nil else { return 0 }
        guard let source = try? bodySource(for: &state.config, url: state.config.url) else { return 0 }
        guard state.config.shouldCompressRequestBody else { return source.length ?? 0 }
        guard case .segments(let segments, _) = source else { return 0 }
        if !measuring, !(state.compressedBody?.matches(segments) ?? false) { return 0 }
        return (try? compressedBody(for: segments, in: &state, url: state.config.url))?.length ?? 0
    }

    /// Seconds without any progress (connecting, sending or receiving) after which the request
    /// fails with `requestTimedOut`; fractions work; 0 or less waits forever. Defaults to
    /// `HTTPRequest.defaultTimeOutSeconds` (10) at creation.
    public var timeOutSeconds: TimeInterval {
        get { read(\.config.timeOutSeconds) }
        set { write(\.config.timeOutSeconds, newValue) }
    }

    /// Seconds the connection may take to be made, TLS handshake included, before the attempt
    /// fails with `requestTimedOut` (`CURLOPT_CONNECTTIMEOUT_MS`); fractions work; 0 or less
    /// leaves libcurl's own limit (300 s). `timeOutSeconds` still applies while connecting: a
    /// connect that makes no progress for that long ends first.
    public var connectTimeOutSeconds: TimeInterval {
        get { read(\.config.connectTimeOutSeconds) }
        set { write(\.config.connectTimeOutSeconds, newValue) }
    }

    /// How many times a request that timed out is run again before it fails (0). Each retry is a
    /// new attempt: started and headers callbacks come again and the body is sent again.
    public var numberOfTimesToRetryOnTimeout: Int {
        get { read(\.config.numberOfTimesToRetryOnTimeout) }
        set { write(\.config.numberOfTimesToRetryOnTimeout, newValue) }
    }

    /// How many times the request has been retried after a timeout.
    public var retryCount: Int { read(\.core.timeoutRetries) }

    /// Sends and stores cookies through the shared cookie jar (true): libcurl's cookie engine,
    /// which scopes each cookie to its domain and path and keeps the jar in memory.
    public var useCookiePersistence: Bool {
        get { read(\.config.useCookiePersistence) }
        set { write(\.config.useCookiePersistence, newValue) }
    }

    /// How the request uses its download cache (`.useDefault`: the cache's own policy).
    public var cachePolicy: CachePolicy {
        get { read(\.config.cachePolicy) }
        set { write(\.config.cachePolicy, newValue) }
    }

    /// Yours: never sent, kept by `copy()`.
    public var userInfo: [String: any Sendable]? {
        get { read(\.config.userInfo) }
        set { write(\.config.userInfo, newValue) }
    }

    /// Yours: never sent.
    public var tag: Int {
        get { read(\.config.tag) }
        set { write(\.config.tag, newValue) }
    }

    /// The queue an asynchronous request calls back on (`HTTPRequest.defaultCallbackQueue`,
    /// the main queue, unless set). A request in a `NetworkQueue` uses the queue's instead; a
    /// synchronous request calls back on the thread that started it.
    public var callbackQueue: DispatchQueue {
        get { read(\.config.callbackQueue) }
        set { write(\.config.callbackQueue, newValue) }
    }

    /// The encoding `responseString()` uses when the response names no charset (ISO Latin 1).
    public var defaultResponseEncoding: String.Encoding {
        get { read(\.config.defaultResponseEncoding) }
        set { write(\.config.defaultResponseEncoding, newValue) }
    }

    // MARK: - Operation

    /// Always true: a request holds no thread while it waits for the network.
    open override var isAsynchronous: Bool { true }

    /// True from when the request starts until its last callback has run. Any thread.
    open override var isExecuting: Bool { state.withLock { $0.core.isExecuting } }

    /// True once the request is over (finished, failed or cancelled) and its last callback has
    /// run; a queue then lets it go. Any thread.
    open override var isFinished: Bool { state.withLock { $0.core.isFinished } }

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

    /// Called once, before the first attempt, outside the lock: a subclass that builds its body
    /// from parts of its own (`FormDataRequest`) sets `postBody` and headers here.
    func buildBodyBeforeFirstAttempt() {}

    /// Called before each attempt of a request whose `config.signsEachAttempt` is set, outside the
    /// lock and never on the engine thread (it may read the body file to hash it): S3Request sets
    /// the attempt's URL and signed headers here (`RequestState.attemptHeaders`). Throwing fails
    /// the request before anything is sent.
    func signAttempt() throws(HTTPRequestError) {}

    /// Called when an attempt of a request whose `config.reviewsResponses` is set ended with a
    /// response, off the lock and the engine thread: whether it stands, fails the request, or is
    /// worth another attempt (S3Request: the service's `<Error>` document and its retries).
    func reviewResponse() -> ResponseReview { .accept }

    /// The review, for a class whose verdict takes a while to reach (WebPageRequest waits for
    /// the page's resources): `verdict` is called once, from any thread, and a verdict that comes
    /// after the request was cancelled is ignored. The default runs `reviewResponse()` on a
    /// worker thread.
    func reviewResponse(then verdict: @escaping @Sendable (ResponseReview) -> Void) {
        DispatchQueue.global().async { verdict(self.reviewResponse()) }
    }

    // MARK: - Copying

    /// A fresh, unstarted request of the same class with this one's configuration, delegate,
    /// selectors, body and userInfo, but not its blocks (as ASI) nor anything about its run.
    @_disfavoredOverload
    open override func copy() -> Any {
        makeCopy()
    }

    /// A fresh, unstarted request of the same class: `let again = request.copy()` has the
    /// subclass's type. See `copyConfiguration(into:)` for a subclass's own properties.
    public func copy() -> Self {
        makeCopy()
    }

    /// Copies this request's configuration into `copy`, a new instance of the same class.
    /// Subclasses with stored properties of their own override this, call `super`, then copy
    /// theirs: `(copy as? LoginRequest)?.account = account`.
    open func copyConfiguration(into copy: HTTPRequest) {
        let (configuration, delegate, selectors) = state.withLock { ($0.config, $0.delegate, $0.selectors) }
        copy.state.withLock { state in
            state.config = configuration
            state.delegate = delegate
            state.selectors = selectors
        }
    }

    private func makeCopy() -> Self {
        let copy = type(of: self).init(url: url)
        copyConfiguration(into: copy)
        return copy
    }

    open override var description: String {
        "<\(type(of: self)) \(read(\.config.requestMethod)) \(Log.masked(read(\.config.url)))>"
    }
}
