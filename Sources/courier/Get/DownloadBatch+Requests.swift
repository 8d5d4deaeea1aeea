import Courier
import Foundation

/// Making each try's request: where its body goes, and the blocks that report back.
extension DownloadBatch {
    /// Gives a job its name in the folder before its first try, so its `.part` file is its own.
    func reserveName(for run: JobRun) throws {
        switch destination {
        case .folder(let folder):
            run.name = try folder.reserveName(for: OutputFileNamer.baseName(for: run.job.url))
        case .file(let folder, let name):
            run.name = try folder.reserveExactly(name)
        case .standardOutput:
            break
        }
        guard let folder = destination.folder, let part = run.partPath(in: folder) else { return }
        if options.usesContentDisposition, case .folder = destination, let name = run.name {
            // The final name is known only once the server has answered, and the downloads end
            // in any order: the reserved name keeps this download's .part its own, and every
            // final name is taken when its file is complete (never replacing one). Holding the
            // URL's name until the head came made a download that ended first take "name (1)".
            folder.keepOnlyPart(of: name)
        }
        // Without -c a .part left by an earlier run is not this download's to continue.
        if !options.resumes { unlink(part) }
        run.stagingPath = folder.path(of: ".courier-\(UUID().uuidString).download")
    }

    /// The request for the run's next try.
    func makeRequest(for run: JobRun) -> HTTPRequest {
        run.attempts += 1
        run.triedAt = Date()
        let request = Self.request(for: run.job)
        options.request.configure(request)
        prepareFeatures(request, for: run)
        if let cache {
            request.downloadCache = cache
            // A cache folder outlives the run: entries are kept across runs, fresh as their
            // headers say (session entries would be dropped when the next run starts).
            request.cacheStoragePolicy = .permanently
        }
        if let folder = destination.folder, let part = run.partPath(in: folder), let staging = run.stagingPath {
            // Courier writes the body to the .part file and renames it to the staging path only
            // once it is complete and decoded; the batch then gives it its name. Resuming is on
            // for every try, so a retry continues where the last one stopped; without -c the .part
            // goes when the job fails for good.
            request.downloadDestinationPath = staging
            request.temporaryFileDownloadPath = part
            request.allowResumeForFileDownloads = true
        } else {
            writeBodyToStandardOutput(request, run: run)
        }
        request.setCompletionBlock { [self] request in
            MainActor.assumeIsolated { requestFinished(request, run: run) }
        }
        request.setFailedBlock { [self] request in
            MainActor.assumeIsolated { requestFailed(request, run: run) }
        }
        run.request = request
        return request
    }

    /// A GET, a POST of bytes, or a form.
    private static func request(for job: FetchJob) -> HTTPRequest {
        switch job.body {
        case .none:
            return HTTPRequest(url: job.url)
        case .data(let data):
            let request = HTTPRequest(url: job.url)
            request.requestMethod = "POST"
            request.postBody = data
            return request
        case .form(let parts):
            return FormRequestBuilder.request(url: job.url, parts: parts)
        }
    }

    /// `-O -`: the body goes to standard output as it arrives, inflated, unless the response is
    /// an error (its body is not what was asked for).
    private func writeBodyToStandardOutput(_ request: HTTPRequest, run: JobRun) {
        request.shouldWaitToInflateCompressedResponses = false
        request.setHeadersReceivedBlock { request, _ in
            MainActor.assumeIsolated { run.writesBody = request.responseStatusCode < 400 }
        }
        request.setDataReceivedBlock { [self] request, data in
            MainActor.assumeIsolated {
                guard run.writesBody, !run.isDone else { return }
                do throws(BodyOutput.Failure) {
                    try BodyOutput.standardOutput.write(data)
                } catch {
                    // The rest of the body would go nowhere: stop the transfer now, and fail it.
                    return stopWriting(run, request: request, because: error)
                }
                run.bytesWritten += Int64(data.count)
            }
        }
    }

    /// A write to standard output failed: the run fails with why, and its transfer is cancelled
    /// rather than left to download what no one will receive.
    private func stopWriting(_ run: JobRun, request: HTTPRequest, because failure: BodyOutput.Failure) {
        run.bytesWritten += Int64(failure.written)
        let reason = "\(failure) after \(run.bytesWritten) B"
        record(result(of: run, request: request, outcome: .failed(reason: reason)), for: run)
        request.cancel()
    }
}
