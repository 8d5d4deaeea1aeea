import Foundation

/// Progress, as ASI reported it: progress delegates, byte blocks and the request's queue hear
/// byte differences and size increments; delegates also get the fraction done. Everything here
/// runs on the callback thread, in the request's callback order.
extension HTTPRequest {
    // MARK: - Configuration

    /// Counts bytes (true, a request's default) or one step per request (false: a `NetworkQueue`
    /// sets its own value on the requests it runs). Falls back to one step when the final
    /// response has no Content-Length, and turns itself off then, as ASI did: read from the
    /// headers callback on, it is false.
    public var showAccurateProgress: Bool {
        get { read(\.config.showAccurateProgress) }
        set { write(\.config.showAccurateProgress, newValue) }
    }

    /// Hears download progress (held weakly).
    public var downloadProgressDelegate: (any ProgressDelegate)? {
        get { read(\.downloadProgressDelegate) }
        set { state.withLock { $0.downloadProgressDelegate = newValue } }
    }

    /// Hears upload progress (held weakly).
    public var uploadProgressDelegate: (any ProgressDelegate)? {
        get { read(\.uploadProgressDelegate) }
        set { state.withLock { $0.uploadProgressDelegate = newValue } }
    }

    /// Whether the request announces its download size to its listeners (true); a queue that has
    /// already counted the request sets it false.
    public var shouldResetDownloadProgress: Bool {
        get { read(\.config.shouldResetDownloadProgress) }
        set { write(\.config.shouldResetDownloadProgress, newValue) }
    }

    /// Whether the request announces its upload size to its listeners (true).
    public var shouldResetUploadProgress: Bool {
        get { read(\.config.shouldResetUploadProgress) }
        set { write(\.config.shouldResetUploadProgress, newValue) }
    }

    /// Runs as bytes arrive (coalesced), with the bytes since the last call (negative on a restart)
    /// and the expected total.
    public func setBytesReceivedBlock(_ block: @escaping @Sendable (Self, Int64, Int64) -> Void) {
        state.withLock {
            $0.blocks.bytesReceived = { request, bytes, total in
                if let request = request as? Self { block(request, bytes, total) }
            }
        }
    }

    /// Runs as bytes are sent (coalesced), with the bytes since the last call and the body length.
    public func setBytesSentBlock(_ block: @escaping @Sendable (Self, Int64, Int64) -> Void) {
        state.withLock {
            $0.blocks.bytesSent = { request, bytes, total in
                if let request = request as? Self { block(request, bytes, total) }
            }
        }
    }

    /// Runs when the expected download size changes, with the increment.
    public func setDownloadSizeIncrementedBlock(_ block: @escaping @Sendable (Self, Int64) -> Void) {
        state.withLock {
            $0.blocks.downloadSizeIncremented = { request, bytes in
                if let request = request as? Self { block(request, bytes) }
            }
        }
    }

    /// Runs when the expected upload size changes, with the increment.
    public func setUploadSizeIncrementedBlock(_ block: @escaping @Sendable (Self, Int64) -> Void) {
        state.withLock {
            $0.blocks.uploadSizeIncremented = { request, bytes in
                if let request = request as? Self { block(request, bytes) }
            }
        }
    }

    // MARK: - Events

    /// An attempt started: a restart takes back what the last attempt reported; the first
    /// announces the upload size (and, for simple progress, one step of download) and, as ASI's
    /// startRequest did, sets the progress delegates of a request that announces its sizes to 0
    /// (not the download's when it resumes a partial file: that starts further on).
    func progressAttemptStarted() {
        let (changes, resetsDownload, resetsUpload) = state.withLock { state in
            let zeroes = state.progress.zeroesFractions(
                Self.progressSettings(state.config), resumesPartialDownload: state.partialDownloadSize != 0)
            return (Self.startProgress(&state), zeroes.download, zeroes.upload)
        }
        deliver(changes, downloadFraction: resetsDownload ? 0 : nil, uploadFraction: resetsUpload ? 0 : nil)
    }

    /// The bookkeeping of an attempt's start; returns what listeners should hear. A request
    /// without listeners does only this, so that its end still counts in its queue.
    static func startProgress(_ state: inout RequestState) -> [ProgressChange] {
        state.progress.attemptStarted(progressSettings(state.config), bodyLength: state.attemptBodyLength)
    }

    private static func progressSettings(_ config: borrowing RequestConfiguration) -> ProgressAccounting.Settings {
        ProgressAccounting.Settings(
            showAccurateProgress: config.showAccurateProgress,
            shouldResetDownloadProgress: config.shouldResetDownloadProgress,
            shouldResetUploadProgress: config.shouldResetUploadProgress)
    }

    /// A response's headers arrived. A redirect that is followed counts for nothing: the final
    /// response's size is the download's. There accurate progress learns what to count against,
    /// or, with no Content-Length, falls back to one step and turns `showAccurateProgress` off,
    /// as ASI did.
    func progressHeadersReceived(_ head: ResponseHead, method: String, isFollowedRedirect: Bool) {
        guard !isFollowedRedirect else { return }
        let changes = state.withLock { state -> [ProgressChange] in
            let headers = state.progress.headersReceived(
                statusCode: head.statusCode, method: method,
                contentLength: head.headerBlock.value(of: "Content-Length").flatMap { Int64($0) },
                announcesDownload: state.config.shouldResetDownloadProgress)
            if headers.turnsOffAccurateProgress { state.config.showAccurateProgress = false }
            return headers.changes
        }
        deliver(changes)
    }

    /// The engine's latest counts, coalesced: reports the bytes since the last report.
    func deliverPendingProgress() {
        let report = state.withLock { $0.progress.takePending() }
        deliver(report.changes, downloadFraction: report.downloadFraction, uploadFraction: report.uploadFraction)
    }

    /// The request ended: the last bytes, sizes corrected to what really moved (so a queue's
    /// totals stay exact), and 1.0 for a request that finished.
    func progressEnded(succeeded: Bool) {
        let changes = state.withLock { state in
            state.progress.ended(received: state.response.totalBytesRead, sent: state.response.totalBytesSent)
        }
        deliver(changes, downloadFraction: succeeded ? 1 : nil, uploadFraction: succeeded ? 1 : nil)
    }

    // MARK: - Delivery

    private struct ProgressListeners {
        var download: (any ProgressDelegate)?
        var upload: (any ProgressDelegate)?
        // Only the four progress blocks: copying all of RequestBlocks retained and released
        // every block the request has.
        var bytesReceived: RequestBlocks.Bytes?
        var bytesSent: RequestBlocks.Bytes?
        var downloadSizeIncremented: RequestBlocks.SizeIncrement?
        var uploadSizeIncremented: RequestBlocks.SizeIncrement?
        var queue: NetworkQueue?
        var generation: Int
        var downloadTotal: Int64
        var uploadTotal: Int64
    }

    /// Hands changes to the request's progress delegates, then its blocks, then its queue (ASI's
    /// order), and the fractions to the request's own delegates.
    private func deliver(_ changes: [ProgressChange], downloadFraction: Double? = nil, uploadFraction: Double? = nil) {
        guard !changes.isEmpty || downloadFraction != nil || uploadFraction != nil else { return }
        let listeners = state.withLock { state in
            ProgressListeners(
                // A weak load only for a listener that was set: most requests have none.
                download: state.downloadProgressDelegateIsSet ? state.downloadProgressDelegate : nil,
                upload: state.uploadProgressDelegateIsSet ? state.uploadProgressDelegate : nil,
                bytesReceived: state.blocks.bytesReceived, bytesSent: state.blocks.bytesSent,
                downloadSizeIncremented: state.blocks.downloadSizeIncremented,
                uploadSizeIncremented: state.blocks.uploadSizeIncremented,
                queue: state.queue?.isShared == false && !state.core.isProbe ? state.queue : nil,
                generation: state.queueGeneration,
                downloadTotal: state.progress.downloadExpected ?? state.progress.downloadAnnounced,
                uploadTotal: state.progress.uploadExpected)
        }
        for change in changes {
            switch change {
            case .received(let bytes):
                listeners.download?.request(self, didReceiveBytes: bytes)
                listeners.bytesReceived?(self, bytes, listeners.downloadTotal)
            case .sent(let bytes):
                listeners.upload?.request(self, didSendBytes: bytes)
                listeners.bytesSent?(self, bytes, listeners.uploadTotal)
            case .downloadSize(let bytes):
                listeners.download?.request(self, incrementDownloadSizeBy: bytes)
                listeners.downloadSizeIncremented?(self, bytes)
            case .uploadSize(let bytes):
                listeners.upload?.request(self, incrementUploadSizeBy: bytes)
                listeners.uploadSizeIncremented?(self, bytes)
            }
        }
        if let downloadFraction { listeners.download?.setProgress(downloadFraction) }
        if let uploadFraction { listeners.upload?.setProgress(uploadFraction) }
        if let queue = listeners.queue, !changes.isEmpty {
            queue.request(self, madeProgress: changes, generation: listeners.generation)
        }
    }
}

extension HTTPRequest {
    /// The verb the request will use: "POST" when a body meets a verb nobody set.
    static func effectiveMethod(of config: borrowing RequestConfiguration) -> String {
        if !config.methodWasSet, hasBody(config) { return "POST" }
        return config.requestMethod
    }

    /// A HEAD request with this one's configuration, to learn its size: ASI's HEADRequest.
    func makeProbe() -> HTTPRequest {
        let configuration = read(\.config)
        let probe = HTTPRequest(url: configuration.url)
        probe.state.withLock { state in
            state.config = configuration
            state.config.requestMethod = "HEAD"
            state.config.methodWasSet = true
            state.config.postBody = nil
            state.config.bodyStream = nil
            state.config.postBodyFilePath = nil
            state.config.diskBody = []
            // A probe learns a size: it parses nothing and writes no file.
            state.config.parsingBlock = nil
            state.config.downloadDestinationPath = nil
            state.config.temporaryFileDownloadPath = nil
            state.config.allowResumeForFileDownloads = false
            state.config.showAccurateProgress = false
            state.config.shouldResetDownloadProgress = false
            state.config.shouldResetUploadProgress = false
            _ = state.core.handle(.membership(.becameProbe(self)))
        }
        return probe
    }

    /// The request's queue counted `size` for its upload when it was added, before the request
    /// runs: each attempt corrects that count to the body it sends.
    func uploadCountedByQueue(_ size: Int64) {
        state.withLock { $0.progress.uploadCountedByQueue(size) }
    }

    /// The probe's answer: the size to count this request's download against, or, with none,
    /// one step. The queue has already added it to its total.
    func takeProbedSize(_ length: Int64?) {
        state.withLock { $0.progress.downloadSizeProbed(length) }
    }
}
