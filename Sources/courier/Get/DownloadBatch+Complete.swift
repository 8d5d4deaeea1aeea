import Courier
import Foundation

/// Not downloading again what is already here: `-c` with a complete file at the name, and the
/// cache answering with what an earlier run saved.
extension DownloadBatch {
    /// `-c`: whether the run has a file at its URL's name but no `.part` to resume, so a HEAD
    /// must tell whether that file is the whole thing. Sets `existingFile` when so.
    func findsExistingFile(for run: JobRun) -> Bool {
        guard options.resumes, !options.overwrites, case .folder(let folder) = destination else { return false }
        let name = OutputFileNamer.baseName(for: run.job.url)
        var status = stat()
        guard stat(folder.path(of: name), &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0,
            access(folder.path(of: name + ".part"), F_OK) != 0
        else { return false }
        run.existingFile = (name, Int64(status.st_size))
        return true
    }

    /// Asks the server for the length of the run's existing file with a HEAD: the same length
    /// (wget's and curl's `-c` test) skips the download as already complete; anything else, a
    /// failure included, downloads it as usual, under a free name.
    func probe(_ run: JobRun) {
        let probe = HTTPRequest(url: run.job.url)
        probe.requestMethod = "HEAD"
        options.request.configure(probe)
        probe.callbackQueue = .main
        let ended: @Sendable (HTTPRequest) -> Void = { [self] probe in
            MainActor.assumeIsolated { probeEnded(probe, run: run) }
        }
        probe.setCompletionBlock(ended)
        probe.setFailedBlock(ended)
        run.probe = probe
        probe.startAsynchronous()
    }

    private func probeEnded(_ probe: HTTPRequest, run: JobRun) {
        guard run.probe === probe else { return }
        run.probe = nil
        guard !run.isDone else { return }
        guard !isEnding else {
            return record(
                result(of: run, request: nil, outcome: .failed(reason: "Cancelled by --fail-fast")), for: run)
        }
        guard let existing = run.existingFile, let folder = destination.folder, probe.error == nil,
            (200..<300).contains(probe.responseStatusCode), probe.responseHeaders["Content-Length"] != nil,
            probe.responseHeaders["Content-Encoding"] == nil, probe.contentLength == existing.size
        else {
            return queue.addOperation(makeRequest(for: run))
        }
        var result = result(
            of: run, request: probe,
            outcome: .saved(
                file: folder.directory.appendingPathComponent(existing.name),
                displayPath: folder.displayPath(of: existing.name)))
        result.byteCount = existing.size
        result.note = "already complete"
        record(result, for: run)
    }

    /// Whether the file at `existing` holds exactly the bytes of the file at `staging`: a
    /// response the cache answered with what an earlier run saved there.
    static func hasSameContents(_ staging: String, as existing: String) -> Bool {
        let first = open(staging, O_RDONLY | O_CLOEXEC)
        let second = open(existing, O_RDONLY | O_CLOEXEC)
        // Read-only descriptors: closing them cannot lose a byte.
        defer {
            if first >= 0 { close(first) }
            if second >= 0 { close(second) }
        }
        var firstStatus = stat()
        var secondStatus = stat()
        guard first >= 0, second >= 0, fstat(first, &firstStatus) == 0, fstat(second, &secondStatus) == 0,
            firstStatus.st_size == secondStatus.st_size
        else { return false }
        var one = [UInt8](repeating: 0, count: 1 << 16)
        var other = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = read(first, &one, one.count)
            guard count >= 0, read(second, &other, count) == count else { return false }
            if count == 0 { return true }
            if one[..<count] != other[..<count] { return false }
        }
    }
}
