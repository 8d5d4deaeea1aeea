import Foundation

/// Everything mutable about a request, kept behind the request's one lock.
struct RequestState {
    // MARK: Configuration
    var url: URL
    var originalURL: URL?
    /// True for a request made from a `URLRequest` without a URL: it fails with `unableToCreateRequest`.
    var hasNoURL = false
    var requestMethod = "GET"
    /// True once the user set `requestMethod`: a body then never changes it.
    var methodWasSet = false
    var requestHeaders = HTTPHeaders()
    var userAgentString: String?
    var useHTTPVersionOne = false
    var postBody: Data?
    var timeOutSeconds: TimeInterval
    var userInfo: [String: any Sendable]?
    var tag = 0
    var callbackQueue: DispatchQueue
    var defaultResponseEncoding: String.Encoding = .isoLatin1

    // MARK: Callbacks
    weak var delegate: (any HTTPRequestDelegate)?
    var selectors = RequestSelectors()
    var blocks = RequestBlocks()

    // MARK: Response
    var response = ResponseState()
    var error: HTTPRequestError?

    // MARK: Lifecycle
    var machine = RequestStateMachine()
    var mailbox: CallbackMailbox?
    var transfer: Transfer?
    /// True once the request was handed to an operation queue.
    var isEnqueued = false
    /// Set once the finished or failed notification has gone out, so a subclass that calls
    /// `failWithError` from `requestFinished()` cannot notify twice.
    var terminalNotified = false

    init(url: URL, timeOutSeconds: TimeInterval, callbackQueue: DispatchQueue) {
        self.url = url
        self.timeOutSeconds = timeOutSeconds
        self.callbackQueue = callbackQueue
    }
}

/// What the server answered, as far as it has arrived.
struct ResponseState {
    var statusCode = 0
    var statusLine: String?
    var headers = HTTPHeaders()
    var body: Data?
    var totalBytesRead: Int64 = 0
    var totalBytesSent: Int64 = 0
    var contentLength: Int64 = 0
    var metrics = RequestMetrics()
}
