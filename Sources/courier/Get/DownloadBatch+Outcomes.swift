import Courier
import Foundation

/// How each try ends: saved under its name, retried after a backoff, or reported.
extension DownloadBatch {
    /// A try got a response (Courier calls a 404 finished too).
    func requestFinished(_ request: HTTPRequest, run: JobRun) {
        guard !run.isDone, run.request === request else { return }
        if let abort = run.abort {
            // The cancel came too late to stop a short transfer, but what asked for it still holds:
            // a head that could not be written, or a limit passed.
            if let staging = run.stagingPath { unlink(staging) }
            return record(result(of: run, request: request, outcome: .failed(reason: abort.reason)), for: run)
        }
        let status = request.responseStatusCode
        // A 416 for a .part that was the whole file: Courier put it in place, as the 416's
        // Content-Range allowed. It is saved, already complete, not an error.
        let isWholePart =
            status == 416 && request.partialDownloadSize > 0
            && run.stagingPath.map { access($0, F_OK) == 0 } == true
        guard status < 400 || isWholePart else {
            // The error's body went to the staging file (or to memory, when a .part was being
            // resumed): it is not the download.
            if let staging = run.stagingPath { unlink(staging) }
            if RetryPolicy.isRetryable(status: status), mayRetry(run) {
                let why = ReportFormatter.reason(forStatus: status, statusLine: request.responseStatusMessage)
                return retry(run, after: request, because: why, retryAfter: request.responseHeaders["Retry-After"])
            }
            let reason = ReportFormatter.reason(forStatus: status, statusLine: request.responseStatusMessage)
            return record(result(of: run, request: request, outcome: .rejected(reason: reason)), for: run)
        }
        if let notModified = notModifiedResult(request, run: run) { return record(notModified, for: run) }
        guard let folder = destination.folder, let reservedName = run.name, let staging = run.stagingPath else {
            return record(result(of: run, request: request, outcome: .saved(file: nil, displayPath: "-")), for: run)
        }
        let offered =
            options.usesContentDisposition
            ? ContentDispositionName.fileName(from: request.responseHeaders["Content-Disposition"]) : nil
        let note = isWholePart ? "already complete" : nil
        let saveFile: @MainActor () -> Void = { [self] in
            save(
                staging, request: request, run: run, folder: folder, reservedName: reservedName, offered: offered,
                note: note)
        }
        switch expectedChecksum(for: run, preferredName: offered) {
        case (let expected?, _):
            verify(staging, against: expected, request: request, run: run, then: saveFile)
        case (nil, let missing?):
            unlink(staging)
            record(result(of: run, request: request, outcome: .failed(reason: missing)), for: run)
        case (nil, nil):
            saveFile()
        }
    }

    /// Gives a finished (and checked) body its name in the folder, and records the result:
    /// `offered` is the server's name for it (--content-disposition), `note` what the line adds.
    private func save(
        _ staging: String, request: HTTPRequest, run: JobRun, folder: OutputFolder, reservedName: String,
        offered: String?, note: String?
    ) {
        var exactly = false
        if case .file = destination { exactly = true }
        // The URL's own name, when the name reserved for it was taken only by a download of the
        // batch that has since been saved under another (--content-disposition): no needless " (1)".
        let urlName = exactly || folder.overwrites ? nil : OutputFileNamer.baseName(for: run.job.url)
        let preferred = offered ?? urlName
        var note = note
        let outcome: FetchResult.Outcome
        let size = Self.fileSize(at: staging)
        if !exactly, !folder.overwrites, request.didUseCachedResponse, let name = preferred,
            Self.hasSameContents(staging, as: folder.path(of: name))
        {
            // The cache answered with what an earlier run saved under the name: a second copy
            // beside it, "name (1)", would only be debris.
            unlink(staging)
            note = "unchanged"
            outcome = .saved(
                file: folder.directory.appendingPathComponent(name), displayPath: folder.displayPath(of: name))
        } else {
            do {
                let name = try folder.claim(staging, preferred: preferred, reserved: reservedName, exactly: exactly)
                let file = folder.directory.appendingPathComponent(name)
                applyLastModified(of: request, to: file)
                outcome = .saved(file: file, displayPath: folder.displayPath(of: name))
            } catch {
                outcome = .failed(reason: "\(error)")
            }
        }
        var result = result(of: run, request: request, outcome: outcome)
        if let size { result.byteCount = size }
        result.note = note
        // A 416 resumed nothing: the .part was already the whole file.
        if note == "already complete" { result.resumedFrom = 0 }
        record(result, for: run)
    }

    /// A try failed: no usable response, a timeout, a body that could not be decoded or written.
    func requestFailed(_ request: HTTPRequest, run: JobRun) {
        guard !run.isDone, run.request === request else { return }
        if let abort = run.abort {
            // Courier's cancel, asked for by a limit of courier's: the limit is the reason.
            if abort.isRetryable, mayRetry(run) {
                return retry(run, after: request, because: abort.reason, retryAfter: nil)
            }
            return record(result(of: run, request: request, outcome: .failed(reason: abort.reason)), for: run)
        }
        let error = request.error
        if let error, RetryPolicy.isRetryable(error), mayRetry(run) {
            return retry(run, after: request, because: ReportFormatter.reason(for: error), retryAfter: nil)
        }
        var reason = ReportFormatter.reason(for: error)
        if error?.type == .requestCancelled, isEnding { reason = "Cancelled by --fail-fast" }
        record(result(of: run, request: request, outcome: .failed(reason: reason)), for: run)
    }

    /// Whether the run has tries left, and nothing stands in the way of one.
    private func mayRetry(_ run: JobRun) -> Bool {
        // Bytes already on standard output cannot be taken back.
        !isEnding && run.attempts <= retryPolicy.retries && run.bytesWritten == 0
    }

    /// Sends the run again once its backoff (or the server's Retry-After) has passed.
    private func retry(_ run: JobRun, after request: HTTPRequest, because reason: String, retryAfter: String?) {
        let delay = retryPolicy.delay(afterAttempt: run.attempts, retryAfter: retryAfter)
        run.request = nil
        reporter.note(
            "retry \(run.attempts)/\(retryPolicy.retries) in \(Self.formatted(delay)): "
                + "\(CredentialMask.url(run.job.url.absoluteString)): \(reason)")
        let work = DispatchWorkItem { [self] in
            MainActor.assumeIsolated {
                guard !run.isDone, !isEnding else { return }
                run.pendingRetry = nil
                queue.addOperation(makeRequest(for: run))
            }
        }
        run.pendingRetry = work
        DispatchQueue.main.asyncAfter(deadline: .now() + delay, execute: work)
    }

    /// The result line's figures for a run, from its last try's request.
    func result(of run: JobRun, request: HTTPRequest?, outcome: FetchResult.Outcome) -> FetchResult {
        FetchResult(
            job: run.job, finalURL: request?.url ?? run.job.url, statusCode: request?.responseStatusCode ?? 0,
            byteCount: run.bytesWritten > 0 ? run.bytesWritten : request?.totalBytesRead ?? 0,
            receivedBytes: request?.totalBytesRead ?? 0,
            seconds: Self.seconds(of: request, run: run), attempts: run.attempts,
            resumedFrom: request?.partialDownloadSize ?? 0, outcome: outcome)
    }

    /// How long the try took: libcurl's figure, or for a try cancelled before libcurl measured
    /// it (--fail-fast, a failed write) the time since it was sent.
    private static func seconds(of request: HTTPRequest?, run: JobRun) -> Double {
        guard let request else { return 0 }
        let measured = request.metrics.total
        return measured > 0 ? measured : Date().timeIntervalSince(run.triedAt)
    }

    private static func fileSize(at path: String) -> Int64? {
        var status = stat()
        return stat(path, &status) == 0 ? Int64(status.st_size) : nil
    }

    private static func formatted(_ seconds: TimeInterval) -> String {
        seconds < 10 ? String(format: "%.1f s", seconds) : String(format: "%.0f s", seconds)
    }
}
