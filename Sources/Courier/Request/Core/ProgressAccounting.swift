/// A request's progress bookkeeping, as ASI reported progress: what it has told its progress
/// delegates, blocks and queue so far, so that every later report is a difference and the sums
/// come out exact. A restarted attempt (a timeout retry, a redirect, an authentication retry)
/// takes back what the last one reported, as negative deltas. The request feeds it events and
/// delivers the changes it returns; no lock, no listener, so the arithmetic has socket-free tests
/// (ProgressAccountingTests).
struct ProgressAccounting {
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

    /// The request's settings that progress depends on.
    struct Settings {
        var showAccurateProgress = true
        var shouldResetDownloadProgress = true
        var shouldResetUploadProgress = true
    }

    // MARK: - Events

    /// An attempt starts, sending a body of `bodyLength` bytes (nil: of unknown length, one step).
    /// A restart takes back what the last attempt reported; the first announces the upload size
    /// (and, for simple progress, one step of download).
    mutating func attemptStarted(_ settings: Settings, bodyLength: Int64?) -> [ProgressChange] {
        var changes: [ProgressChange] = []
        if hasStartedAttempt {
            if downloadReported != 0 { changes.append(.received(-downloadReported)) }
            if uploadReported != 0 { changes.append(.sent(-uploadReported)) }
        }
        hasStartedAttempt = true
        downloadReported = 0
        uploadReported = 0
        pending = nil
        downloadExpected = nil
        let isAccurate = settings.showAccurateProgress
        // A body of unknown length counts as one step.
        let length = bodyLength ?? 1
        isDownloadAccurate = isAccurate && !forcesSimpleDownload
        isUploadAccurate = isAccurate && bodyLength != nil
        uploadExpected = length
        // What this attempt will count: its body, or one step.
        let uploadSize = isUploadAccurate ? length : 1
        if hasAnnouncedUpload {
            // The size announced (by the request or by its queue when it was added) was another
            // body's: a FormDataRequest builds its body only now, a redirect may drop it. ASI's
            // queue learned such changes through request:incrementUploadSizeBy:.
            if uploadAnnounced != uploadSize {
                changes.append(.uploadSize(uploadSize - uploadAnnounced))
                uploadAnnounced = uploadSize
            }
        } else if settings.shouldResetUploadProgress {
            hasAnnouncedUpload = true
            if uploadSize != 0 {
                uploadAnnounced += uploadSize
                changes.append(.uploadSize(uploadSize))
            }
        }
        if !isAccurate, settings.shouldResetDownloadProgress, !hasAnnouncedDownload {
            hasAnnouncedDownload = true
            downloadAnnounced += 1
            changes.append(.downloadSize(1))
        }
        return changes
    }

    /// Whether the attempt about to start sets the progress delegates to 0, as ASI's startRequest
    /// did: only the first attempt of a request that announces its sizes, and not the download's
    /// when it resumes a partial file (that starts further on). Asked before `attemptStarted`.
    func zeroesFractions(_ settings: Settings, resumesPartialDownload: Bool) -> (download: Bool, upload: Bool) {
        guard !hasStartedAttempt else { return (false, false) }
        return (settings.shouldResetDownloadProgress && !resumesPartialDownload, settings.shouldResetUploadProgress)
    }

    /// What the final response's headers change.
    struct Headers {
        var changes: [ProgressChange] = []
        /// No Content-Length to count against: `showAccurateProgress` turns off, for what the
        /// user reads from now on and for a retry (ASI).
        var turnsOffAccurateProgress = false
    }

    /// The headers of a response that is not a followed redirect (a redirect counts for
    /// nothing: the final response's size is the download's). Accurate progress learns what to
    /// count against, or, with no Content-Length, falls back to one step.
    mutating func headersReceived(
        statusCode: Int, method: String, contentLength: Int64?, announcesDownload shouldResetDownloadProgress: Bool
    ) -> Headers {
        guard isDownloadAccurate else { return Headers() }
        let hasBody = method != "HEAD" && statusCode != 204 && statusCode != 304
        let announces = shouldResetDownloadProgress && !hasAnnouncedDownload
        if hasBody, let contentLength {
            downloadExpected = contentLength
            guard announces, contentLength != 0 else { return Headers() }
            hasAnnouncedDownload = true
            downloadAnnounced += contentLength
            return Headers(changes: [.downloadSize(contentLength)])
        }
        isDownloadAccurate = false
        // A HEAD, 204 or 304 with a length has one, though no body.
        var headers = Headers(turnsOffAccurateProgress: contentLength == nil)
        guard announces else { return headers }
        hasAnnouncedDownload = true
        downloadAnnounced += 1
        headers.changes = [.downloadSize(1)]
        return headers
    }

    /// The engine's latest counts. True when none were waiting: the caller posts one delivery,
    /// which takes whatever is pending by then.
    mutating func bytesMoved(received: Int64, sent: Int64) -> Bool {
        let wasPending = pending != nil
        pending = (received, sent)
        return !wasPending
    }

    /// What a delivery reports: the changes, and the fractions for the progress delegates.
    struct Report {
        var changes: [ProgressChange] = []
        var downloadFraction: Double?
        var uploadFraction: Double?
    }

    /// Takes the pending counts: the bytes since the last report.
    mutating func takePending() -> Report {
        guard let pending else { return Report() }
        self.pending = nil
        var report = Report()
        if isDownloadAccurate, let expected = downloadExpected {
            let delta = pending.received - downloadReported
            if delta != 0 { report.changes.append(.received(delta)) }
            downloadReported = pending.received
            if expected > 0 { report.downloadFraction = min(1, Double(pending.received) / Double(expected)) }
        }
        if isUploadAccurate, uploadExpected > 0 {
            let sent = min(pending.sent, uploadExpected)
            let delta = sent - uploadReported
            if delta != 0 { report.changes.append(.sent(delta)) }
            uploadReported = sent
            report.uploadFraction = Double(sent) / Double(uploadExpected)
        }
        return report
    }

    /// The request ended having received and sent these totals: the last bytes, and sizes
    /// corrected to what really moved (so a queue's totals stay exact).
    mutating func ended(received: Int64, sent totalSent: Int64) -> [ProgressChange] {
        pending = nil
        guard hasStartedAttempt else { return [] }
        var changes: [ProgressChange] = []
        changes.reserveCapacity(4)  // at most four changes: one allocation
        if isDownloadAccurate {
            // Without a response there was no size to count against: nothing to report.
            if downloadExpected != nil {
                let delta = received - downloadReported
                if delta != 0 { changes.append(.received(delta)) }
                downloadReported = received
                if hasAnnouncedDownload, downloadAnnounced != received {
                    changes.append(.downloadSize(received - downloadAnnounced))
                    downloadAnnounced = received
                }
            }
        } else if downloadReported == 0 {
            // Simple progress, or accurate progress that fell back for want of a length: the
            // request is one step.
            changes.append(.received(1))
            downloadReported = 1
        }
        if isUploadAccurate {
            let sent = min(totalSent, uploadExpected)
            let delta = sent - uploadReported
            if delta != 0 { changes.append(.sent(delta)) }
            uploadReported = sent
            if hasAnnouncedUpload, uploadAnnounced != sent {
                changes.append(.uploadSize(sent - uploadAnnounced))
                uploadAnnounced = sent
            }
        } else if uploadReported == 0 {
            changes.append(.sent(1))
            uploadReported = 1
        }
        return changes
    }

    // MARK: - The queue's counts

    /// The request's queue counted `size` for its upload when it was added, before the request
    /// runs: each attempt corrects that count to the body it sends.
    mutating func uploadCountedByQueue(_ size: Int64) {
        hasAnnouncedUpload = true
        uploadAnnounced = size
    }

    /// The queue's HEAD probe answered: the size to count the download against, or, with none,
    /// one step. The queue has already added it to its total.
    mutating func downloadSizeProbed(_ length: Int64?) {
        hasAnnouncedDownload = true
        if let length {
            downloadAnnounced = length
        } else {
            downloadAnnounced = 1
            forcesSimpleDownload = true
        }
    }
}

/// One thing progress listeners hear.
enum ProgressChange: Equatable {
    case received(Int64)
    case sent(Int64)
    case downloadSize(Int64)
    case uploadSize(Int64)
}
