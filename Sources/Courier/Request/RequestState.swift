import Foundation

/// What a request is told to do: everything `copy()` carries over to a fresh request, apart from
/// the delegate and selectors, which live beside it.
struct RequestConfiguration {
    var url: URL
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
    var connectTimeOutSeconds: TimeInterval = 0
    var numberOfTimesToRetryOnTimeout = 0
    var userInfo: [String: any Sendable]?
    var tag = 0
    var callbackQueue: DispatchQueue
    var defaultResponseEncoding: String.Encoding = .isoLatin1
    var showAccurateProgress = true
    var shouldResetDownloadProgress = true
    var shouldResetUploadProgress = true
    var useCookiePersistence = true
    /// The user's own cookies, sent where they match (`HTTPRequest+Cookies.swift`).
    var requestCookies: [HTTPCookie] = []
    var cachePolicy: CachePolicy = .useDefault
    var parsingBlock: (@Sendable (Data) throws -> any Sendable)?

    var shouldRedirect = true
    /// The class signs each attempt (`HTTPRequest.signAttempt()`): S3Request.
    var signsEachAttempt = false
    /// The class reviews each error response (300 or more) before the request finishes
    /// (`reviewResponse()`), and an error status's body goes to memory, never to the download
    /// file: S3Request.
    var reviewsResponses = false
    /// …and its successful responses too (a listing to read, an error a 200 may carry); a plain
    /// GET or PUT skips the review, and its hand-off to a worker thread.
    var reviewsSuccessfulResponses = false
    var maxRedirects = HTTPRequest.defaultMaxRedirects
    var shouldUseRFC2616RedirectBehaviour = false
    var shouldSendCredentialsAcrossRedirects = false
    var downloadDestinationPath: String?
    var temporaryFileDownloadPath: String?
    var allowResumeForFileDownloads = false
    var validatesSecureCertificate = true
    var caBundlePath: String?
    var clientCertificate: ClientCertificate?
    var shouldAttemptPersistentConnection = true
    var persistentConnectionTimeoutSeconds: TimeInterval = 60
    var shouldStreamPostDataFromDisk = false
    var postBodyFilePath: String?
    /// The body's pieces when `shouldStreamPostDataFromDisk` is on.
    var diskBody: [DiskBodyPiece] = []
    /// A file `appendPostData(fromFile:)` could not read: the request fails with it when it starts.
    var unreadableBodyFile: String?
    /// Why `appendPostData` could not write `postBodyFilePath`: the request fails with it when it starts.
    var unwritableBodyFile: String?
    /// Why a subclass could not build its body (a form part's Content-Type with a CR, LF or
    /// NUL): the request fails with it when it starts, before anything is sent.
    var unbuildableBody: String?
    var bodyStream: BodyStreamSource?
    var shouldCompressRequestBody = false
    var allowCompressedResponse = true
    var shouldWaitToInflateCompressedResponses = true
    /// The Content-Type of the body a subclass built from its parts (`FormDataRequest`'s
    /// multipart boundary), sent unless `requestHeaders` has one. Kept apart from the user's
    /// headers so a copy, which builds its body again, never sends an earlier boundary.
    var builtBodyContentType: String?
    /// Credentials, stores, dialogs and the proxy.
    var auth = AuthenticationSettings()
    /// The download cache (`HTTPRequest.defaultCache` when the request was made).
    var downloadCache: (any CacheDelegate)?
    var cacheStoragePolicy = CacheStoragePolicy.sessionDuration
    /// Seconds a stored response stays fresh, whatever its headers say; 0: as they say.
    var secondsToCache: TimeInterval = 0
    /// `pacURL`: the proxy auto-configuration file.
    var pacURL: URL?
}

/// Everything mutable about a request, kept behind the request's one lock.
struct RequestState {
    var config: RequestConfiguration

    // MARK: Callbacks
    weak var delegate: (any HTTPRequestDelegate)? {
        didSet { delegateIsSet = delegate != nil }
    }
    var selectors = RequestSelectors()
    var blocks = RequestBlocks()
    weak var downloadProgressDelegate: (any ProgressDelegate)? {
        didSet { downloadProgressDelegateIsSet = downloadProgressDelegate != nil }
    }
    weak var uploadProgressDelegate: (any ProgressDelegate)? {
        didSet { uploadProgressDelegateIsSet = uploadProgressDelegate != nil }
    }
    var progress = ProgressAccounting()
    /// Whether each weak listener above was last set to an object (it may have gone since):
    /// asking these costs no weak load, which `hasAttemptListeners` does for every request.
    private(set) var delegateIsSet = false
    private(set) var downloadProgressDelegateIsSet = false
    private(set) var uploadProgressDelegateIsSet = false

    // MARK: Queue
    /// The `NetworkQueue` running the request; held until the request has finished.
    var queue: NetworkQueue?
    /// The queue's progress generation when the request was added: progress from a request the
    /// queue has since written off (`cancelAllOperations`) is not counted.
    var queueGeneration = 0
    /// The queue callbacks go to when a `NetworkQueue` (other than the shared one) runs the request.
    var queueCallbackQueue: DispatchQueue?
    /// The queue's drainer for its callback queue; used when the request calls back there.
    var drainer: CallbackDrainer?

    // MARK: Progress of the run
    var originalURL: URL?
    var response = ResponseState()
    var parsedResult: (any Sendable)?
    /// The `postBodyFilePath` this request's `appendPostData` calls have begun writing: not
    /// configuration, so a copy's first append starts the file afresh again (as in ASI, whose
    /// copy had no write stream).
    var bodyFileWritten: String?
    /// Bytes of a kept temporary download file that this attempt resumes from.
    var partialDownloadSize: Int64 = 0
    /// This attempt's 416 said the kept temporary file already is the whole entity.
    var keptDownloadIsWhole = false
    /// This attempt's response was an error (400 or above) met while resuming: its body went to
    /// memory, and the kept temporary file stays as it was, for the next attempt to resume.
    var keptDownloadSurvivesError = false
    /// Set once the finished download was moved into place: `temporaryFileDownloadPath` is nil.
    var downloadIsInPlace = false
    /// The header fields the current (or last) attempt added to the user's own, which
    /// `requestHeaders` shows once the request has started. Not configuration: `copy()` and the
    /// next redirect hop never see them, and each attempt works them out afresh.
    var generatedHeaders = GeneratedHeaders()
    /// A signing class's headers for the attempt, sent instead of `config.requestHeaders` (which
    /// they include), and the attempt they were signed for.
    var attemptHeaders: HTTPHeaders?
    var signedAttempt = 0
    /// The body length this attempt sends on the wire, or nil when unknown (a gzipped stream,
    /// a stream of unknown length).
    var attemptBodyLength: Int64? = 0
    /// The body's gzip form last worked out (`shouldCompressRequestBody`), reused while the body
    /// is the same: `postLength`, the queue and every attempt then compress it once.
    var compressedBody: CompressedBody?
    /// Body chunks on their way to a data delegate or block.
    var stream = StreamState()
    /// How the download cache took part: a copy served, or asked about.
    var cacheRun = CacheRun()
    /// Challenges answered and credentials presented, for the server and the proxy.
    var authentication = AuthenticationRun()
    /// The PAC file's choices for the current URL (`pacURL`).
    var pac = PACRequestState()

    // MARK: Lifecycle
    /// Where the request is, and what it waits for: its phase, activity, attempt, transfer,
    /// counts, outcome and queue membership. Changed only by its events (`HTTPRequest.send`).
    var core = RequestCore()
    var mailbox: CallbackMailbox?
    /// Run once the terminal callback has been delivered (`response()` waits on one).
    var terminalObservers: [@Sendable () -> Void] = []

    init(url: URL, timeOutSeconds: TimeInterval, callbackQueue: DispatchQueue, downloadCache: (any CacheDelegate)?) {
        config = RequestConfiguration(url: url, timeOutSeconds: timeOutSeconds, callbackQueue: callbackQueue)
        if let downloadCache { config.downloadCache = downloadCache }
    }
}

/// What the server answered, as far as it has arrived.
struct ResponseState {
    var statusCode = 0
    var statusLine: String?
    /// The last response's fields as they arrived, parsed into `headers` on first use.
    var headerBlock = RawHeaderBlock() {
        didSet { parsedHeaders = nil }
    }
    private var parsedHeaders: HTTPHeaders?

    /// The last response's fields, parsed once, when first asked for.
    var headers: HTTPHeaders {
        mutating get {
            if let parsedHeaders { return parsedHeaders }
            let headers = headerBlock.parsed()
            parsedHeaders = headers
            return headers
        }
    }
    var body: Data?
    var totalBytesRead: Int64 = 0
    var totalBytesSent: Int64 = 0
    /// The response's Content-Length, or the bytes read when it gave none; worked out when
    /// asked, since most requests never ask.
    var contentLength: Int64 {
        headerBlock.value(of: "Content-Length").flatMap { Int64($0) } ?? totalBytesRead
    }
    var metrics = RequestMetrics()
    var isCompressed = false
    /// The charset the body declares itself in, when the Content-Type names none: a page's
    /// byte-order mark or `<meta charset>` (WebPageRequest). `responseEncoding` reads it before
    /// the default.
    var declaredEncoding: String.Encoding?
    /// What the cache stores when it is not the body the request keeps: a WebPageRequest's page
    /// as it arrived, before its rewriting (a later read rewrites it in its own mode).
    var cacheBody: Data?
}

/// Body chunks taken from the engine and not yet handed to a data delegate: the back-pressure
/// that lets a slow consumer pause its transfer instead of piling up memory.
struct StreamState {
    var chunks: [Data] = []
    var pendingBytes = 0
    var deliveryScheduled = false
    /// True when the engine paused the transfer because `pendingBytes` reached the limit.
    var transferPaused = false

    /// Bytes taken from the engine and not yet consumed at which the transfer pauses: the
    /// backlog stays within this and one chunk (see `HTTPRequest.transferHasRoom`).
    static let pauseThreshold = 256 * 1024
    /// The transfer runs again once the backlog fell to this: half the threshold, so that each
    /// pause lets a few chunks through rather than one.
    static let resumeThreshold = pauseThreshold / 2
}
