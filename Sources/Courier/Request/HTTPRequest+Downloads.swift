import Foundation

/// Downloads straight to disk: the body goes to a temporary file beside the destination, which
/// is renamed into place only when the request has finished, so a failure never leaves a
/// half-written file at the destination. A kept temporary file can be resumed with a Range request.
extension HTTPRequest {
    /// Where the body goes instead of memory (`responseData()` is then nil). Replaced when the
    /// request finishes; untouched when it fails.
    public var downloadDestinationPath: String? {
        get { read(\.config.downloadDestinationPath) }
        set { write(\.config.downloadDestinationPath, newValue) }
    }

    /// Where the body is written while it arrives: the destination's path with ".download"
    /// appended unless set. Nil once the finished download has been moved (or inflated) into
    /// place, as ASI reset it; a failed download keeps it, so the file can be resumed or removed.
    public var temporaryFileDownloadPath: String? {
        get { state.withLock { $0.downloadIsInPlace ? nil : Self.temporaryPath(for: $0.config) } }
        set {
            state.withLock {
                $0.config.temporaryFileDownloadPath = newValue
                $0.downloadIsInPlace = false
            }
        }
    }

    /// Keep the temporary file when a download fails, and resume from it with
    /// `Range: bytes=N-` next time (false).
    public var allowResumeForFileDownloads: Bool {
        get { read(\.config.allowResumeForFileDownloads) }
        set { write(\.config.allowResumeForFileDownloads, newValue) }
    }

    /// Bytes of the temporary file the current attempt resumes from (0: from the start).
    public var partialDownloadSize: Int64 { read(\.partialDownloadSize) }

    /// Removes the temporary download file, if there is one.
    /// - Throws: `HTTPRequestError` of type `fileManagement` when it exists and cannot be removed.
    public func removeTemporaryDownloadFile() throws(HTTPRequestError) {
        guard let path = temporaryFileDownloadPath, FileManager.default.fileExists(atPath: path) else { return }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileBodyWriter.error("remove", path: path, errno: errno)
        }
    }

    // MARK: - Attempts

    static func temporaryPath(for config: borrowing RequestConfiguration) -> String? {
        guard let destination = config.downloadDestinationPath else { return nil }
        return config.temporaryFileDownloadPath ?? destination + ".download"
    }

    /// Before an attempt: a kept temporary file to resume sets `partialDownloadSize`.
    static func prepareDownload(_ state: inout RequestState) {
        state.partialDownloadSize = 0
        state.keptDownloadIsWhole = false
        state.keptDownloadSurvivesError = false
        guard state.config.allowResumeForFileDownloads, let path = temporaryPath(for: state.config),
            let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value, size > 0
        else { return }
        state.partialDownloadSize = size
    }

    /// Where the final response's body goes when downloading: appended to the temporary file for
    /// a 206 that continues it, from scratch otherwise (a server that ignored the Range), nowhere
    /// for a 416. A 416 whose `Content-Range: bytes */<length>` is the kept file's size says that
    /// file is already the whole entity: it is then moved into place as the download. An error
    /// (400 or above) met while resuming never replaces the kept file: its body goes to memory
    /// (`responseData()`), and the kept file waits, whole, for the next attempt to resume it.
    static func downloadPlan(for head: ResponseHead, state: inout RequestState) -> BodyPlan? {
        guard let path = temporaryPath(for: state.config) else { return nil }
        // A challenge's body is never the download: the request answers it and tries again (or
        // fails), and a kept file must not be resumed from the challenge's bytes.
        if head.statusCode == 401 || head.statusCode == 407 { return .memory }
        // A service's error document is read by its review (S3Request), and is never the object.
        if state.config.reviewsResponses, head.statusCode >= 300 { return .memory }
        var appending = false
        if state.partialDownloadSize > 0 {
            let range = head.headerBlock.value(of: "Content-Range") ?? ""
            if head.statusCode == 206, range.hasPrefix("bytes \(state.partialDownloadSize)-") {
                appending = true
            } else if head.statusCode == 416 {
                state.keptDownloadIsWhole =
                    entityLength(inUnsatisfiedRange: head.headerBlock.value(of: "Content-Range"))
                    == state.partialDownloadSize
                return .discard
            } else if head.statusCode >= 400 {
                state.keptDownloadSurvivesError = true
                return .memory
            } else {
                state.partialDownloadSize = 0
            }
        }
        return .file(path: path, appending: appending)
    }

    /// The complete length `<n>` of a 416's `Content-Range: bytes */<n>`, or nil.
    static func entityLength(inUnsatisfiedRange value: String?) -> Int64? {
        guard let value, value.hasPrefix("bytes */") else { return nil }
        return Int64(value.dropFirst(8).trimmingCharacters(in: .whitespaces))
    }

    /// After the last attempt finished: the temporary file replaces the destination. Returns the
    /// error that failed the move, if any; nothing is left half-written at the destination.
    /// Once in place, `temporaryFileDownloadPath` reads nil.
    func moveDownloadIntoPlace() -> HTTPRequestError? {
        let (config, status, isCompressed, keptIsWhole, keptThroughError, headerBlock) = state.withLock {
            (
                $0.config, $0.response.statusCode, $0.response.isCompressed, $0.keptDownloadIsWhole,
                $0.keptDownloadSurvivesError, $0.response.headerBlock
            )
        }
        guard !keptThroughError, let destination = config.downloadDestinationPath,
            let temporary = Self.temporaryPath(for: config),
            FileManager.default.fileExists(atPath: temporary)
        else { return nil }
        let failure: HTTPRequestError?
        if status == 416 {
            // The 416's own body went nowhere. The kept file is the download only when the server
            // said it is the whole entity; otherwise it stays as it is, for the user to judge.
            guard keptIsWhole else { return nil }
            failure = renameIntoPlace(temporary, over: destination)
        } else if isCompressed, config.shouldWaitToInflateCompressedResponses {
            // Inflated beside the destination, then renamed over it: nothing half-inflated there.
            let staging = Self.stagingPath(beside: destination)
            let codings = headerBlock.values(of: "Content-Encoding")
            if let inflateFailure = Self.inflateFile(at: temporary, to: staging, contentEncodings: codings, url: url) {
                unlink(staging)
                discardPartialDownload()
                return inflateFailure
            }
            failure = Self.moveIntoPlace(staging, over: destination, removing: temporary)
        } else {
            failure = renameIntoPlace(temporary, over: destination)
        }
        if failure == nil { write(\.downloadIsInPlace, true) }
        return failure
    }

    /// Renames the finished temporary file over the destination, or, across file systems, copies
    /// it beside the destination first, so the destination still changes in one step.
    private func renameIntoPlace(_ temporary: String, over destination: String) -> HTTPRequestError? {
        if rename(temporary, destination) == 0 { return nil }
        guard errno == EXDEV else {
            let error = FileBodyWriter.error("move into place", path: destination, errno: errno)
            discardPartialDownload()
            return error
        }
        // Another file system: copy beside the destination, then rename, so the destination
        // still changes in one step.
        let staging = Self.stagingPath(beside: destination)
        do {
            try FileManager.default.copyItem(atPath: temporary, toPath: staging)
        } catch {
            unlink(staging)
            return HTTPRequestError(
                type: .fileManagement, message: "Could not copy the download to \(staging): \(error)", url: url,
                underlyingError: error)
        }
        return Self.moveIntoPlace(staging, over: destination, removing: temporary)
    }

    /// A new name in the destination's folder, where a finished file is prepared before one
    /// rename puts it in place.
    private static func stagingPath(beside destination: String) -> String {
        destination + ".courier-\(UUID().uuidString)"
    }

    /// Renames a prepared file over the destination in one step and removes the download's
    /// temporary file, if one is named; if the rename fails, the prepared file goes instead and
    /// the error says why.
    private static func moveIntoPlace(
        _ staging: String, over destination: String, removing temporary: String?
    )
        -> HTTPRequestError?
    {
        guard rename(staging, destination) == 0 else {
            let error = FileBodyWriter.error("move into place", path: destination, errno: errno)
            unlink(staging)
            return error
        }
        if let temporary { unlink(temporary) }
        return nil
    }

    /// A request that fails on a 401 or 407 it could not answer leaves that response's body at
    /// the destination, as ASI did. The body waited in memory, since another attempt might have
    /// followed, so no temporary file to resume holds it; while resuming a kept file, the
    /// challenge is an error met on the way (as a 503 is) and the kept part waits, whole, for
    /// the next try. Returns the body, the request then finishing; nil when nothing goes to the
    /// destination. Under the request's lock.
    static func takeChallengeBodyForDestination(_ state: inout RequestState, failure: HTTPRequestError) -> Data? {
        let status = state.response.statusCode
        guard failure.type == .authentication, status == 401 || status == 407,
            state.config.downloadDestinationPath != nil, state.partialDownloadSize == 0, !streamsBody(state)
        else { return nil }
        guard state.core.handle(.finishing).proceeds else { return nil }
        let lazily = state.config.shouldWaitToInflateCompressedResponses
        return inflatedBody(state.response, lazily: lazily) ?? state.response.body
    }

    /// Writes a failed request's challenge body beside the destination, then renames it over it
    /// in one step. Off the engine thread. A file that cannot be written is logged: the request's
    /// error stays the authentication failure the user has to act on.
    func writeChallengeBodyToDestination(_ body: Data) {
        // A request cancelled meanwhile ends as cancelled: nothing of it goes to the file.
        let (destination, isCancelled) = state.withLock { ($0.config.downloadDestinationPath, $0.core.isCancelled) }
        guard let destination, !isCancelled else { return }
        if let failure = Self.writeIntoPlace(body, at: destination, url: url) {
            Log.message("the challenge's body could not be saved: \(failure.message)")
        }
    }

    /// Writes `data` beside `destination`, then renames it over the destination in one step:
    /// nothing half-written is ever there. The error says which step failed, and where.
    static func writeIntoPlace(_ data: Data, at destination: String, url: URL) -> HTTPRequestError? {
        let staging = stagingPath(beside: destination)
        do {
            try data.write(to: URL(fileURLWithPath: staging))
        } catch {
            unlink(staging)
            return HTTPRequestError(
                type: .fileManagement, message: "Could not write \(staging): \(error)", url: url,
                underlyingError: error)
        }
        return moveIntoPlace(staging, over: destination, removing: nil)
    }

    /// A download failed: its temporary file goes, unless it is kept for resuming.
    func discardPartialDownload() {
        let config = read(\.config)
        guard !config.allowResumeForFileDownloads, let temporary = Self.temporaryPath(for: config) else { return }
        unlink(temporary)
    }
}
