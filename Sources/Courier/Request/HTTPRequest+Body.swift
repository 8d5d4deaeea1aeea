import Foundation

/// Request bodies beyond `postBody`: files streamed from disk, streams from a producer, and gzip.
extension HTTPRequest {
    /// Keep the body on disk rather than in memory (false): `appendPostData` and
    /// `appendPostData(fromFile:)` then write to `postBodyFilePath`, or, when it is nil, add
    /// pieces that are read only while they are sent.
    public var shouldStreamPostDataFromDisk: Bool {
        get { read(\.config.shouldStreamPostDataFromDisk) }
        set { write(\.config.shouldStreamPostDataFromDisk, newValue) }
    }

    /// A file whose contents are the whole body, streamed from disk as it is sent (ASI: set it to
    /// PUT a file). Takes precedence over `postBody`. With `shouldStreamPostDataFromDisk` on,
    /// `appendPostData` writes this file.
    public var postBodyFilePath: String? {
        get { read(\.config.postBodyFilePath) }
        set { write(\.config.postBodyFilePath, newValue) }
    }

    /// Appends bytes to the body: to `postBody`, or, when `shouldStreamPostDataFromDisk` is on,
    /// to the file at `postBodyFilePath` (ASI: the request's first append starts that file
    /// afresh, creating it; the file is then the body). With no `postBodyFilePath` the bytes are
    /// kept as a piece of the body instead of in a temporary file. A body file that cannot be
    /// written fails the request with `internalErrorWhileBuildingRequest`, naming it, when it
    /// starts. Writes the file on the calling thread.
    public func appendPostData(_ data: Data) {
        let bodyFile = state.withLock { state -> (path: String, startsAfresh: Bool)? in
            if let bodyFile = Self.claimBodyFile(&state) { return bodyFile }
            if state.config.shouldStreamPostDataFromDisk {
                if !data.isEmpty { state.config.diskBody.append(.data(data)) }
            } else {
                if state.config.postBody == nil { state.config.postBody = Data() }
                state.config.postBody!.append(data)
            }
            return nil
        }
        guard let bodyFile else { return }
        do {
            try PostBodyFile.append(data, to: bodyFile.path, startsAfresh: bodyFile.startsAfresh)
        } catch {
            remember(error)
        }
    }

    /// Adds a file's contents to the body: when `shouldStreamPostDataFromDisk` is on, copied now
    /// into the file at `postBodyFilePath` (as `appendPostData(_:)` writes there), or, with no
    /// such file, as a piece read only while it is sent; otherwise read into `postBody` now. A
    /// file that cannot be read fails the request with `internalErrorWhileBuildingRequest` when
    /// it starts.
    public func appendPostData(fromFile path: String) {
        let (streams, bodyFile) = state.withLock { state in
            (state.config.shouldStreamPostDataFromDisk, Self.claimBodyFile(&state))
        }
        if let bodyFile {
            do {
                try PostBodyFile.append(contentsOf: path, to: bodyFile.path, startsAfresh: bodyFile.startsAfresh)
            } catch {
                remember(error)
            }
        } else if streams {
            state.withLock { $0.config.diskBody.append(.file(path)) }
        } else if let data = FileManager.default.contents(atPath: path) {
            appendPostData(data)
        } else {
            // Remembered, so the request fails with the path when it starts.
            state.withLock { $0.config.unreadableBodyFile = path }
        }
    }

    /// The body file appends go to, if any, and whether this append is the request's first to
    /// it (which truncates it, as ASI opened its write stream with `append:NO`). Under the lock.
    private static func claimBodyFile(_ state: inout RequestState) -> (path: String, startsAfresh: Bool)? {
        guard state.config.shouldStreamPostDataFromDisk, let path = state.config.postBodyFilePath else { return nil }
        defer { state.bodyFileWritten = path }
        return (path, state.bodyFileWritten != path)
    }

    /// Keeps the first failure to build the body file, so the request fails with it when it starts.
    private func remember(_ failure: PostBodyFile.Failure) {
        state.withLock { state in
            switch failure {
            case .unreadable(let path):
                if state.config.unreadableBodyFile == nil { state.config.unreadableBodyFile = path }
            case .unwritable(let message):
                if state.config.unwritableBodyFile == nil { state.config.unwritableBodyFile = message }
            }
        }
    }

    /// Sends the body from a stream the closure makes, called again for each attempt that must
    /// send the body again (a 307, an authentication retry). With a nil `length` the body goes
    /// chunked. The stream is read on a thread of Courier's, so a `read` that blocks until data
    /// arrives (a pipe, a FIFO, `makeBoundStreams`) is fine.
    public func setPostBodyStream(length: Int64?, _ makeStream: @escaping @Sendable () -> InputStream) {
        state.withLock { $0.config.bodyStream = BodyStreamSource(length: length, maker: StreamMaker(makeStream)) }
    }

    /// Gzip the body as it is sent, with `Content-Encoding: gzip` (false). As in ASI, the
    /// Content-Length and `postLength` are the gzipped size: a body in memory is compressed once;
    /// one with files is read through once to learn its gzipped size, then compressed again as
    /// it is sent, never kept whole. That measuring happens where `postLength` is read, where the
    /// request is added to a queue showing accurate progress (which counts it then), or else on
    /// a worker thread before the first attempt. A stream is compressed as it is sent, chunked.
    public var shouldCompressRequestBody: Bool {
        get { read(\.config.shouldCompressRequestBody) }
        set { write(\.config.shouldCompressRequestBody, newValue) }
    }

    /// Works out the gzip form of the body ahead, on the calling thread but without holding the
    /// lock (a large file takes a while), for `postLength` and the attempts to find. Does
    /// nothing unless the body is compressed, or when it was worked out for the body as it is.
    func measureCompressedBody() {
        guard let pending = state.withLock({ Self.bodyToMeasure(&$0) }) else { return }
        // A body that cannot be compressed fails the attempt, which tries again under the lock.
        guard let made = try? CompressedBody.make(from: pending.segments, url: pending.url) else { return }
        state.withLock { $0.compressedBody = made }
    }

    /// The body to gzip and measure, when it is compressed and its gzip form is not known for it
    /// as it is now. Under the request's lock; stats the body's files.
    static func bodyToMeasure(_ state: inout RequestState) -> (segments: [BodySegment], url: URL)? {
        guard state.config.shouldCompressRequestBody, hasBody(state.config),
            case .segments(let segments, _)? = try? bodySource(for: &state.config, url: state.config.url)
        else { return nil }
        if let known = state.compressedBody, known.matches(segments) { return nil }
        return (segments, state.config.url)
    }

    /// The gzip form of the body `segments` make: the one worked out before while it still
    /// matches them, else made now. Under the request's lock.
    static func compressedBody(
        for segments: [BodySegment], in state: inout RequestState, url: URL
    ) throws(HTTPRequestError) -> CompressedBody {
        if let known = state.compressedBody, known.matches(segments) { return known }
        let made = try CompressedBody.make(from: segments, url: url)
        state.compressedBody = made
        return made
    }

    // MARK: - Attempts

    /// The body this attempt sends. Files are checked now: one that cannot be read fails the
    /// request, naming it, before anything is sent.
    ///
    /// `inout` only so that callers holding the state lock pass their configuration in place:
    /// borrowed, the compiler copied all of it (~800 instructions a request). Nothing is changed.
    static func bodySource(
        for config: inout RequestConfiguration, url: URL
    ) throws(HTTPRequestError) -> RequestBodySource? {
        if let path = config.unreadableBodyFile { throw unreadable(path, errno: ENOENT, url: url) }
        if let message = config.unwritableBodyFile {
            throw HTTPRequestError(type: .internalErrorWhileBuildingRequest, message: message, url: url)
        }
        if let stream = config.bodyStream { return .stream(length: stream.length, maker: stream.maker) }
        if let path = config.postBodyFilePath {
            let size = try fileSize(path, url: url)
            return .segments([.file(path: path, length: size)], length: size)
        }
        if config.shouldStreamPostDataFromDisk, !config.diskBody.isEmpty {
            var segments: [BodySegment] = []
            var length: Int64 = 0
            for piece in config.diskBody {
                switch piece {
                case .data(let data):
                    segments.append(.data(data))
                    length += Int64(data.count)
                case .file(let path):
                    let size = try fileSize(path, url: url)
                    segments.append(.file(path: path, length: size))
                    length += size
                case .fileRange(let path, let offset, let count):
                    let size = try fileSize(path, url: url)
                    guard offset >= 0, count >= 0, offset + count <= size else {
                        throw HTTPRequestError(
                            type: .internalErrorWhileBuildingRequest,
                            message: "The body file \(path) is \(size) bytes: it has no bytes \(offset)..<\(offset + count)",
                            url: url)
                    }
                    segments.append(.file(path: path, offset: offset, length: count))
                    length += count
                }
            }
            return .segments(segments, length: length)
        }
        // An empty postBody is no body (ASI: a postLength of 0): a GET stays a plain GET, with no
        // POST mode, Content-Type or gzip of nothing.
        guard let data = config.postBody, !data.isEmpty else { return nil }
        return .data(data)
    }

    /// True when the request has a body to send (which makes an unset method POST).
    static func hasBody(_ config: borrowing RequestConfiguration) -> Bool {
        config.bodyStream != nil || config.postBodyFilePath != nil
            || (config.shouldStreamPostDataFromDisk && !config.diskBody.isEmpty)
            || !(config.postBody?.isEmpty ?? true)
    }

    private static func fileSize(_ path: String, url: URL) throws(HTTPRequestError) -> Int64 {
        var status = stat()
        guard stat(path, &status) == 0 else { throw unreadable(path, errno: errno, url: url) }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest, message: "The body file \(path) is not a regular file",
                url: url)
        }
        guard access(path, R_OK) == 0 else { throw unreadable(path, errno: errno, url: url) }
        return Int64(status.st_size)
    }

    private static func unreadable(_ path: String, errno code: Int32, url: URL) -> HTTPRequestError {
        HTTPRequestError(
            type: .internalErrorWhileBuildingRequest,
            message: "The body file \(path) cannot be read: \(String(cString: strerror(code)))", url: url)
    }
}

/// A producer's body: its length, when known, and what makes its stream.
struct BodyStreamSource {
    var length: Int64?
    var maker: StreamMaker
}

/// Calls a producer's closure for each attempt and refuses a stream it has already had, or one
/// that is no longer readable: a resend must not send half a body.
///
/// `@unchecked Sendable`: `made` is guarded by its lock; `make` is a `@Sendable` closure.
final class StreamMaker: @unchecked Sendable {
    private let make: @Sendable () -> InputStream
    /// The streams made so far, kept alive so that a new stream cannot take a freed one's
    /// address and pass for it (one per attempt: a handful at most).
    private let made = Locked<[InputStream]>([])

    init(_ make: @escaping @Sendable () -> InputStream) {
        self.make = make
    }

    /// A stream for the next attempt, or nil when the closure gave one back that was used.
    func makeFresh() -> InputStream? {
        let stream = make()
        let isNew = made.withLock { made -> Bool in
            guard !made.contains(where: { $0 === stream }) else { return false }
            made.append(stream)
            return true
        }
        switch stream.streamStatus {
        case .atEnd, .closed, .error: return nil
        default: return isNew ? stream : nil
        }
    }
}

/// A piece of a body kept on disk (`shouldStreamPostDataFromDisk`).
enum DiskBodyPiece {
    case data(Data)
    case file(String)
    /// `length` bytes of the file from `offset`: a multipart upload's part.
    case fileRange(String, offset: Int64, length: Int64)
}
