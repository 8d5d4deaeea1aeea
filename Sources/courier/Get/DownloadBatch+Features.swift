import Courier
import Foundation

/// What `--no-clobber`, `-N`, `--checksum(s)`, `--include`, `-D`, `--max-time` and
/// `--speed-limit` add to a batch's requests and to how a finished body is saved.
extension DownloadBatch {
    /// What must hold before the first request: `-D FILE` created, `--checksums FILE` read, and
    /// with `-v` where default options came from.
    func prepareFeatures() throws(UsageError) {
        if options.request.isVerbose {
            for note in options.defaultsNotes { Console.error("* " + note) }
        }
        if let path = options.checksumsPath { checksumList = try ChecksumList(path: path) }
        if let path = options.headerDumpPath {
            if path == "-" {
                headerDump = STDOUT_FILENO
            } else {
                let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
                guard descriptor >= 0 else {
                    throw UsageError("-D: cannot create \(path): \(String(cString: strerror(errno)))", command: "get")
                }
                // Left open until the process exits: every write is a write(2) of its own, so
                // nothing waits in a buffer to be flushed by a close.
                headerDump = descriptor
            }
        }
    }

    /// `--no-clobber`: the result for a run whose name is taken, or nil when it should be fetched.
    func skippedAsExisting(_ run: JobRun) -> FetchResult? {
        guard options.skipsExisting, let folder = destination.folder else { return nil }
        let name: String
        if case .file(_, let exactName) = destination {
            name = exactName
        } else {
            name = OutputFileNamer.baseName(for: run.job.url)
        }
        var status = stat()
        guard lstat(folder.path(of: name), &status) == 0 else { return nil }
        return result(
            of: run, request: nil,
            outcome: .skipped(
                file: folder.directory.appendingPathComponent(name), displayPath: folder.displayPath(of: name),
                why: "exists; --no-clobber"))
    }

    /// Sets up one try's request for the features: the conditional header of `-N`, and the
    /// watcher that sees every response's headers and the try's start.
    func prepareFeatures(_ request: HTTPRequest, for run: JobRun) {
        run.abort = nil
        run.responseHead = ""
        run.limitWatch?.stop()
        run.limitWatch = nil
        if options.isTimestamping, let folder = destination.folder, let name = run.name {
            var status = stat()
            if stat(folder.path(of: name), &status) == 0 {
                let modified = Date(timeIntervalSince1970: TimeInterval(status.st_mtim.tv_sec))
                request.addRequestHeader("If-Modified-Since", value: HTTPDateText.string(from: modified))
            }
        }
        if let seconds = options.connectTimeoutSeconds { request.connectTimeOutSeconds = seconds }
        request.tag = run.index
        request.delegate = responseWatcher
    }

    /// A try started (each redirect hop starts one too): its limits start with the first.
    func tryStarted(_ request: HTTPRequest) {
        guard let run = currentRun(of: request), run.limitWatch == nil else { return }
        guard options.maxTimeSeconds != nil || options.lowSpeedLimit != nil else { return }
        let watch = TransferLimitWatch(maxTime: options.maxTimeSeconds, lowSpeed: options.lowSpeedLimit)
        run.limitWatch = watch
        watch.start(request) { [weak self, weak request] reason in
            guard let request, let run = self?.currentRun(of: request) else { return }
            run.abort = (reason, true)
            request.cancel()
        }
    }

    /// A response's head arrived: kept for `--include`, written to `-D FILE`, and with `-O -
    /// --include` put on standard output before the body, as curl does.
    func headersReceived(_ request: HTTPRequest, _ headers: HTTPHeaders) {
        guard let run = currentRun(of: request) else { return }
        guard options.includesHeaders || headerDump != nil else { return }
        var block = (request.responseStatusMessage ?? "HTTP \(request.responseStatusCode)") + "\r\n"
        for (name, value) in headers { block += "\(name): \(value)\r\n" }
        block += "\r\n"
        if let headerDump {
            if let failure = Self.writeAll(Data(block.utf8), to: headerDump) {
                run.abort = ("cannot write the headers to \(options.headerDumpPath ?? "-"): \(failure)", false)
                request.cancel()
                return
            }
        }
        guard options.includesHeaders else { return }
        if destination.folder == nil {
            do throws(BodyOutput.Failure) {
                try BodyOutput.standardOutput.write(Data(block.utf8))
            } catch {
                // As for the body: what follows would go nowhere.
                run.abort = ("\(error)", false)
                request.cancel()
            }
        } else {
            run.responseHead += block
        }
    }

    /// The try ended, one way or the other: its limits stop.
    func tryEnded(_ request: HTTPRequest) {
        currentRun(of: request)?.limitWatch?.stop()
    }

    /// `-N`: a 304 keeps the file there; nil for any other response.
    func notModifiedResult(_ request: HTTPRequest, run: JobRun) -> FetchResult? {
        guard options.isTimestamping, request.responseStatusCode == 304, let folder = destination.folder,
            let name = run.name
        else { return nil }
        if let staging = run.stagingPath { unlink(staging) }
        // An empty .part the 304 left; with -c one from an earlier run is the user's to keep.
        if !options.resumes, let part = run.partPath(in: folder) { unlink(part) }
        return result(
            of: run, request: request,
            outcome: .skipped(
                file: folder.directory.appendingPathComponent(name), displayPath: folder.displayPath(of: name),
                why: "not modified"))
    }

    /// The digest the run's file must have: `--checksum`, or its name's line in `--checksums`
    /// (the server's name with `--content-disposition`, else the URL's, else `-O`'s).
    func expectedChecksum(for run: JobRun, preferredName: String?) -> (ExpectedChecksum?, missing: String?) {
        if let checksum = options.checksum { return (checksum, nil) }
        guard let checksumList else { return (nil, nil) }
        var names = [preferredName, OutputFileNamer.baseName(for: run.job.url)].compactMap { $0 }
        if case .file(_, let exactName) = destination { names.append(exactName) }
        for name in names {
            if let checksum = checksumList.checksum(for: name) { return (checksum, nil) }
        }
        return (nil, "\(checksumList.path) lists no \(names.first ?? "name") (--checksums); not saved")
    }

    /// Hashes the finished body off the main queue, then, on it, either saves it (`save`) or
    /// fails the run and removes it: nothing stays at its name after a mismatch.
    func verify(
        _ staging: String, against expected: ExpectedChecksum, request: HTTPRequest, run: JobRun,
        then save: @escaping @MainActor () -> Void
    ) {
        DispatchQueue.global().async {
            let outcome: Result<String, any Error>
            do {
                outcome = .success(try expected.digest(ofFileAt: staging))
            } catch {
                outcome = .failure(error)
            }
            DispatchQueue.main.async { [self] in
                MainActor.assumeIsolated {
                    guard !run.isDone else { return }
                    let reason: String
                    switch outcome {
                    case .success(let actual) where actual == expected.hex:
                        return save()
                    case .success(let actual):
                        reason =
                            "\(expected.algorithm.rawValue) mismatch: expected \(expected.hex), got \(actual); not saved"
                    case .failure(let error):
                        reason = "cannot read the download to check its \(expected.algorithm.rawValue): \(error)"
                    }
                    unlink(staging)
                    record(result(of: run, request: request, outcome: .failed(reason: reason)), for: run)
                }
            }
        }
    }

    /// `-N`: the saved file gets the server's Last-Modified as its modification time, so the next
    /// run asks for what is newer than that. A response without one leaves the time of saving.
    func applyLastModified(of request: HTTPRequest, to file: URL) {
        guard options.isTimestamping, let text = request.responseHeaders["Last-Modified"],
            let date = HTTPDateText.date(from: text)
        else { return }
        do {
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: file.path)
        } catch {
            reporter.note("-N: cannot set the time of \(file.path): \(error)")
        }
    }

    /// Writes all of `data` to `descriptor`; what went wrong (strerror's text) when it could not.
    private static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { buffer -> String? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                offset += written
            }
            return nil
        }
    }

    private func currentRun(of request: HTTPRequest) -> JobRun? {
        guard runs.indices.contains(request.tag) else { return nil }
        let run = runs[request.tag]
        return run.request === request && !run.isDone ? run : nil
    }
}

/// The delegate of every request of a batch: it hands the start and the headers of each try to
/// the batch. The completion and failure are the batch's blocks, which run after this.
@MainActor
final class ResponseWatcher: HTTPRequestDelegate {
    weak var batch: DownloadBatch?

    nonisolated func requestStarted(_ request: HTTPRequest) {
        MainActor.assumeIsolated { batch?.tryStarted(request) }
    }

    nonisolated func request(_ request: HTTPRequest, didReceiveResponseHeaders headers: HTTPHeaders) {
        MainActor.assumeIsolated { batch?.headersReceived(request, headers) }
    }

    nonisolated func requestRedirected(_ request: HTTPRequest) {}

    nonisolated func requestFinished(_ request: HTTPRequest) {
        MainActor.assumeIsolated { batch?.tryEnded(request) }
    }

    nonisolated func requestFailed(_ request: HTTPRequest) {
        MainActor.assumeIsolated { batch?.tryEnded(request) }
    }
}
