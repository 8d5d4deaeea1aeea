/// A request's progress bookkeeping: what it has told its progress delegates, blocks and queue
/// so far, so that every later report is a difference and the sums come out exact.
struct ProgressTracking {
    /// Download bytes reported in this attempt.
    var downloadReported: Int64 = 0
    /// Upload bytes reported in this attempt.
    var uploadReported: Int64 = 0
    /// Download size announced with `incrementDownloadSizeBy`, over the whole request.
    var downloadAnnounced: Int64 = 0
    /// Upload size announced with `incrementUploadSizeBy`, over the whole request.
    var uploadAnnounced: Int64 = 0
    /// Whether the download size has been announced (once per request, if asked to).
    var hasAnnouncedDownload = false
    /// Whether the upload size has been announced (once per request, if asked to).
    var hasAnnouncedUpload = false
    /// The response's Content-Length, when the attempt counts download bytes.
    var downloadExpected: Int64?
    /// The upload length of this attempt.
    var uploadExpected: Int64 = 0
    /// Whether this attempt counts download bytes (accurate) or one step for the request (simple,
    /// or accurate without a Content-Length to count against).
    var isDownloadAccurate = true
    /// Whether this attempt counts upload bytes.
    var isUploadAccurate = true
    /// The latest byte counts from the engine, not yet delivered: progress is coalesced here.
    var pending: (received: Int64, sent: Int64)?
    /// Set once an attempt has started, so the next one knows it is a restart.
    var hasStartedAttempt = false
    /// Set when a queue's HEAD probe found no Content-Length: the download is one step.
    var forcesSimpleDownload = false
}

/// One thing progress listeners hear.
enum ProgressChange {
    case received(Int64)
    case sent(Int64)
    case downloadSize(Int64)
    case uploadSize(Int64)
}
