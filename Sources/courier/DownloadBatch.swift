import Courier
import Foundation

/// Runs a batch of requests through one `RequestQueue`, saves each response as it finishes,
/// prints its result line, and reports the summary when the last one is done. `get` and `demo`
/// both fetch through this.
///
/// Main-actor isolated: every request calls back on the main queue, so the bookkeeping needs no
/// lock; the caller must keep the main queue running (`dispatchMain()`).
@MainActor
final class DownloadBatch {
    private let jobs: [FetchJob]
    private let writer: OutputFileWriter
    private let queue: RequestQueue
    private var results: [FetchResult?]
    private var remaining: Int
    private var startedAt = Date()
    private var onFinish: (@MainActor (BatchSummary) -> Void)?

    /// A batch that saves into `writer`'s directory, at most `maxConcurrentRequests` at a time.
    init(jobs: [FetchJob], writer: OutputFileWriter, maxConcurrentRequests: Int) {
        self.jobs = jobs
        self.writer = writer
        queue = RequestQueue(maxConcurrentRequests: maxConcurrentRequests)
        results = Array(repeating: nil, count: jobs.count)
        remaining = jobs.count
    }

    /// Queues every request; `onFinish` runs on the main queue after the last result line.
    func start(onFinish: @escaping @MainActor (BatchSummary) -> Void) {
        self.onFinish = onFinish
        startedAt = Date()
        guard !jobs.isEmpty else { return finishBatch() }
        for (index, job) in jobs.enumerated() {
            queue.add(makeRequest(for: job, index: index))
        }
    }

    private func makeRequest(for job: FetchJob, index: Int) -> HTTPRequest {
        let request = HTTPRequest(url: job.url)
        if let body = job.body {
            request.requestMethod = job.method
            request.postBody = body
        }
        // Said explicitly because the blocks below rely on it: they assume the main actor.
        request.callbackQueue = .main
        // The blocks hold the batch until the request is done; the batch holds no request, so
        // there is no cycle to break.
        request.setCompletionBlock { request in
            MainActor.assumeIsolated { self.requestFinished(request, index: index) }
        }
        request.setFailedBlock { request in
            MainActor.assumeIsolated { self.requestFailed(request, index: index) }
        }
        return request
    }

    private func requestFinished(_ request: HTTPRequest, index: Int) {
        let job = jobs[index]
        let body = request.responseData() ?? Data()
        let status = request.responseStatusCode
        let outcome: FetchResult.Outcome
        if status >= 400 {
            outcome = .rejected
        } else {
            do {
                let file = try writer.save(body, for: job.url)
                outcome = .saved(file: file, displayPath: writer.displayPath(for: file))
            } catch {
                outcome = .failed(reason: "\(error)")
            }
        }
        record(
            FetchResult(
                job: job, statusCode: status, byteCount: body.count, seconds: request.metrics.total,
                outcome: outcome),
            at: index)
    }

    private func requestFailed(_ request: HTTPRequest, index: Int) {
        let job = jobs[index]
        let reason = ReportFormatter.reason(for: request.error)
        // A failure may still have a response (a 401 without credentials keeps its status and
        // body, as in ASI): its figures go on the line too.
        record(
            FetchResult(
                job: job, statusCode: request.responseStatusCode, byteCount: request.responseData()?.count ?? 0,
                seconds: request.metrics.total, outcome: .failed(reason: reason)),
            at: index)
    }

    private func record(_ result: FetchResult, at index: Int) {
        guard results[index] == nil else { return }
        results[index] = result
        Console.out(ReportFormatter.line(for: result))
        remaining -= 1
        if remaining == 0 { finishBatch() }
    }

    private func finishBatch() {
        let summary = BatchSummary(results: results.compactMap { $0 }, seconds: Date().timeIntervalSince(startedAt))
        let onFinish = onFinish
        self.onFinish = nil
        onFinish?(summary)
    }
}
