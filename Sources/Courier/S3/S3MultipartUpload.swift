import Foundation

/// A file uploaded to S3 in parts (beyond ASI): CreateMultipartUpload, the parts through one
/// NetworkQueue (each read from the file as it is sent, each retried), then
/// CompleteMultipartUpload with the parts in order. A failure or `cancel()` aborts the upload on
/// the service (AbortMultipartUpload), so no parts are left behind to be billed.
///
/// ```swift
/// let upload = S3MultipartUpload(file: "/backups/disk.img", bucket: "backups", key: "disk.img")
/// upload.configure = { request in request.endpoint = URL(string: "http://127.0.0.1:9000") }
/// let eTag = try await upload.upload()
/// ```
///
/// Use S3ObjectRequest for files under a few parts' size: one PUT is cheaper than three requests.
///
/// `@unchecked Sendable`: every mutable field is in `state`, behind its lock.
public final class S3MultipartUpload: @unchecked Sendable {
    /// The file to upload.
    public let file: String
    /// The bucket it goes to.
    public let bucket: String
    /// The key it is stored under.
    public let key: String

    private let state = Locked(UploadState())

    /// S3's smallest part (but the last).
    public static let minimumPartSize: Int64 = 5 * 1024 * 1024
    /// S3's most parts in one upload: a larger file gets larger parts.
    static let maximumPartCount: Int64 = 10_000
    /// How many times a part that failed (its connection, a timeout, a 500 S3Request's own retries
    /// did not get past) is sent again.
    static let partRetryLimit = 3

    /// An upload of the file at `file` to `key` in `bucket`; nothing happens until `upload()`.
    public init(file: String, bucket: String, key: String) {
        self.file = file
        self.bucket = bucket
        self.key = key
    }

    /// Bytes in each part but the last: 8 MiB by default; less than 5 MiB (S3's least) is taken
    /// as 5 MiB, and a file of more than 10,000 parts gets larger ones.
    public var partSize: Int64 {
        get { state.withLock { $0.partSize } }
        set { state.withLock { $0.partSize = newValue } }
    }

    /// How many parts are sent at once (4).
    public var maxConcurrentParts: Int {
        get { state.withLock { $0.maxConcurrentParts } }
        set { state.withLock { $0.maxConcurrentParts = max(1, newValue) } }
    }

    /// Applied to every request the upload makes, before it starts: credentials, endpoint, region,
    /// and for the object, `mimeType`, `metadata`, `storageClass` or `accessPolicy` (the start of
    /// the upload carries those; the parts ignore them).
    public var configure: (@Sendable (S3Request) -> Void)? {
        get { state.withLock { $0.configure } }
        set { state.withLock { $0.configure = newValue } }
    }

    /// Told of the parts' progress, as one upload (the NetworkQueue's aggregate); held weakly.
    public var uploadProgressDelegate: (any ProgressDelegate)? {
        get { state.withLock { $0.progressDelegate } }
        set { state.withLock { $0.progressDelegate = newValue } }
    }

    /// The service's ID for the upload, once it has started.
    public var uploadID: String? { state.withLock { $0.uploadID } }

    /// Uploads the file and returns the completed object's ETag (`"<hex>-<parts>"`, quotes
    /// removed). Cancelling the calling task cancels the upload.
    /// - Throws: the first failure (a part's, after its retries, or the start's or the end's),
    ///   after the upload was aborted on the service; `requestCancelled` after `cancel()`.
    public func upload() async throws(HTTPRequestError) -> String {
        let result: Result<String, HTTPRequestError> = await withTaskCancellationHandler {
            do throws(HTTPRequestError) {
                return .success(try await run())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            self.cancel()
        }
        return try result.get()
    }

    /// Stops the upload: the request under way is cancelled, and the upload is aborted on the
    /// service. `upload()` then throws `requestCancelled`.
    public func cancel() {
        let (request, queue) = state.withLock { state -> (HTTPRequest?, NetworkQueue?) in
            state.isCancelled = true
            return (state.currentRequest, state.partQueue)
        }
        request?.cancel()
        queue?.cancelAllOperations()
    }

    // MARK: - The steps

    private func run() async throws(HTTPRequestError) -> String {
        let size = try Self.fileSize(file)
        let parts = Self.parts(ofFileSize: size, partSize: partSize)
        let start = makeRequest(subResource: "uploads", method: "POST")
        try await perform(start)
        let uploadID = try Self.uploadID(in: start)
        state.withLock { $0.uploadID = uploadID }
        do throws(HTTPRequestError) {
            let eTags = try await uploadParts(parts, uploadID: uploadID)
            let complete = makeRequest(subResource: "uploadId=" + AWSURIEncoding.encode(uploadID), method: "POST")
            complete.postBody = Self.completionDocument(eTags)
            complete.mimeType = "application/xml"
            try await perform(complete)
            let document = try? S3XMLElement.parse(complete.responseData() ?? Data())
            return (document?.text("ETag") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        } catch {
            await abort(uploadID: uploadID, after: error)
            throw error
        }
    }

    /// Sends the parts through one queue and returns their ETags by part number.
    private func uploadParts(_ parts: [PartRange], uploadID: String) async throws(HTTPRequestError) -> [Int: String] {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = maxConcurrentParts
        // Failures are this upload's to handle: a part is retried before the rest give up.
        queue.shouldCancelAllRequestsOnFailure = false
        queue.showAccurateProgress = true
        queue.uploadProgressDelegate = uploadProgressDelegate
        let tracker = PartTracker(count: parts.count)
        let isCancelled = state.withLock { state -> Bool in
            state.partQueue = queue
            return state.isCancelled
        }
        if isCancelled { throw Self.cancelled(url: nil) }
        let result: Result<[Int: String], HTTPRequestError> = await withCheckedContinuation { continuation in
            tracker.onEnd = { continuation.resume(returning: $0) }
            for part in parts { queue.addOperation(makePartRequest(part, uploadID: uploadID, tracker: tracker, queue: queue)) }
            queue.go()
        }
        state.withLock { $0.partQueue = nil }
        if case .failure = result { queue.cancelAllOperations() }
        return try result.get()
    }

    private func makePartRequest(
        _ part: PartRange, uploadID: String, tracker: PartTracker, queue: NetworkQueue
    ) -> S3ObjectRequest {
        let request = makeRequest(
            subResource: "partNumber=\(part.number)&uploadId=" + AWSURIEncoding.encode(uploadID), method: "PUT")
        request.state.withLock {
            $0.config.shouldStreamPostDataFromDisk = true
            $0.config.diskBody = [.fileRange(file, offset: part.offset, length: part.length)]
        }
        request.setCompletionBlock { request in
            guard let eTag = request.responseHeaders["ETag"], !eTag.isEmpty else {
                return tracker.fail(
                    HTTPRequestError(
                        type: .serviceError, message: "S3 answered part \(part.number) without an ETag", url: request.url))
            }
            tracker.finished(part.number, eTag: eTag)
        }
        request.setFailedBlock { [weak self] request in
            guard let self, let error = request.error else { return }
            if error.type != .requestCancelled, Self.isWorthRetrying(error), tracker.retry(part.number) {
                Log.message("part \(part.number) of \(self.key) failed (\(error.message)); sending it again")
                queue.addOperation(self.makePartRequest(part, uploadID: uploadID, tracker: tracker, queue: queue))
                return
            }
            let isCancelled = self.state.withLock { $0.isCancelled }
            tracker.fail(isCancelled ? Self.cancelled(url: request.url) : error)
        }
        return request
    }

    /// Aborts the upload on the service: its parts are deleted, so none is billed. A failure to
    /// abort is logged; the upload's own error is what the caller hears of.
    private func abort(uploadID: String, after error: HTTPRequestError) async {
        let abort = makeRequest(subResource: "uploadId=" + AWSURIEncoding.encode(uploadID), method: "DELETE")
        do throws(HTTPRequestError) {
            _ = try await abort.response()
        } catch let failure {
            Log.message("aborting the upload of \(key) (\(uploadID)) after \(error.message) failed: \(failure.message)")
        }
    }

    /// Runs `request` as the upload's current one (cancelled by `cancel()`).
    private func perform(_ request: S3ObjectRequest) async throws(HTTPRequestError) {
        let isCancelled = state.withLock { state -> Bool in
            state.currentRequest = request
            return state.isCancelled
        }
        defer { state.withLock { $0.currentRequest = nil } }
        if isCancelled { throw Self.cancelled(url: request.url) }
        _ = try await request.response()
    }

    private func makeRequest(subResource: String, method: String) -> S3ObjectRequest {
        let request = S3ObjectRequest(bucket: bucket, key: key, subResource: subResource)
        request.requestMethod = method
        configure?(request)
        return request
    }

    // MARK: - Pure parts

    /// A part: its number (from 1) and its bytes of the file.
    struct PartRange: Equatable {
        let number: Int
        let offset: Int64
        let length: Int64
    }

    /// The parts of a file of `size` bytes: `partSize` each (at least 5 MiB, and large enough for
    /// at most 10,000 parts), the last one shorter. An empty file is one empty part.
    static func parts(ofFileSize size: Int64, partSize: Int64) -> [PartRange] {
        var part = max(partSize, minimumPartSize)
        if size > part * maximumPartCount {
            // Whole MiBs, so the parts are the sizes a user expects to see.
            let mebibyte: Int64 = 1024 * 1024
            part = ((size + maximumPartCount - 1) / maximumPartCount + mebibyte - 1) / mebibyte * mebibyte
        }
        guard size > 0 else { return [PartRange(number: 1, offset: 0, length: 0)] }
        return stride(from: Int64(0), to: size, by: Int(part)).enumerated().map { index, offset in
            PartRange(number: index + 1, offset: offset, length: min(part, size - offset))
        }
    }

    /// CompleteMultipartUpload's body: every part's number and ETag, in order.
    static func completionDocument(_ eTags: [Int: String]) -> Data {
        var document = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for number in eTags.keys.sorted() {
            let eTag = eTags[number]!.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            document += "<Part><PartNumber>\(number)</PartNumber><ETag>\(eTag)</ETag></Part>"
        }
        return Data((document + "</CompleteMultipartUpload>").utf8)
    }

    /// A part's failure that another try may get past: not the service refusing it (a 4xx).
    static func isWorthRetrying(_ error: HTTPRequestError) -> Bool {
        switch error.type {
        case .connectionFailure, .requestTimedOut: return true
        case .serviceError:
            guard let s3 = error.underlyingError as? S3Error else { return false }
            return S3RetryPolicy.isServerError(statusCode: s3.statusCode, code: s3.code)
        default: return false
        }
    }

    private static func uploadID(in request: S3ObjectRequest) throws(HTTPRequestError) -> String {
        guard let document = try? S3XMLElement.parse(request.responseData() ?? Data()),
            let uploadID = document.text("UploadId"), !uploadID.isEmpty
        else {
            throw HTTPRequestError(
                type: .serviceError, message: "S3 started the multipart upload without an UploadId", url: request.url)
        }
        return uploadID
    }

    private static func fileSize(_ path: String) throws(HTTPRequestError) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            let reason = errno == 0 ? "is not a regular file" : String(cString: strerror(errno))
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest, message: "The file \(path) cannot be uploaded: \(reason)")
        }
        return Int64(status.st_size)
    }

    private static func cancelled(url: URL?) -> HTTPRequestError {
        HTTPRequestError(type: .requestCancelled, message: "The multipart upload was cancelled", url: url)
    }
}

/// What an S3MultipartUpload keeps behind its lock.
private struct UploadState {
    var partSize: Int64 = 8 * 1024 * 1024
    var maxConcurrentParts = 4
    var configure: (@Sendable (S3Request) -> Void)?
    weak var progressDelegate: (any ProgressDelegate)?
    var uploadID: String?
    var isCancelled = false
    var currentRequest: HTTPRequest?
    var partQueue: NetworkQueue?
}

/// The parts' ETags as they finish, their retries, and the one end: all done, or the first failure.
///
/// `@unchecked Sendable`: its state is behind its lock; `onEnd` is set before any part starts.
private final class PartTracker: @unchecked Sendable {
    private struct Progress {
        var eTags: [Int: String] = [:]
        var retries: [Int: Int] = [:]
        var hasEnded = false
    }

    private let count: Int
    private let progress = Locked(Progress())
    var onEnd: (@Sendable (Result<[Int: String], HTTPRequestError>) -> Void)?

    init(count: Int) { self.count = count }

    func finished(_ number: Int, eTag: String) {
        let eTags = progress.withLock { progress -> [Int: String]? in
            guard !progress.hasEnded else { return nil }
            progress.eTags[number] = eTag
            guard progress.eTags.count == count else { return nil }
            progress.hasEnded = true
            return progress.eTags
        }
        if let eTags { onEnd?(.success(eTags)) }
    }

    /// Whether part `number` may be sent again (and counts the try).
    func retry(_ number: Int) -> Bool {
        progress.withLock { progress in
            guard !progress.hasEnded, progress.retries[number, default: 0] < S3MultipartUpload.partRetryLimit else {
                return false
            }
            progress.retries[number, default: 0] += 1
            return true
        }
    }

    func fail(_ error: HTTPRequestError) {
        let ends = progress.withLock { progress -> Bool in
            guard !progress.hasEnded else { return false }
            progress.hasEnded = true
            return true
        }
        if ends { onEnd?(.failure(error)) }
    }
}
