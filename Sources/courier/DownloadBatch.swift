import Courier
import Foundation

/// Runs a batch of requests through one `RequestQueue`, saves each response as it finishes,
/// prints its result line, and reports the summary when the last one is done. `get` and `demo`
/// both fetch through this.
///
/// Main-actor isolated: every request calls back on the main queue, so the bookkeeping needs no
/// lock; the caller must keep the main queue running (`dispatchMain()`) and the batch alive.
@MainActor
final class DownloadBatch {
    private let jobs: [FetchJob]
    private let writer: OutputFileWriter
    private let queue: RequestQueue
    private var results: [FetchResult?]
    private var startedAt = Date()
    private var onFinish: (@MainActor (BatchSummary) -> Void)?

    /// A batch that saves into `writer`'s directory, at most `maxConcurrentRequests` at a time,
    /// with a progress bar on standard error when `showsProgress` is true.
    init(jobs: [FetchJob], writer: OutputFileWriter, maxConcurrentRequests: Int, showsProgress: Bool) {
        self.jobs = jobs
        self.writer = writer
        queue = RequestQueue(maxConcurrentRequests: maxConcurrentRequests, showsProgress: showsProgress)
        results = Array(repeating: nil, count: jobs.count)
    }

    /// Queues every request and starts them; `onFinish` runs on the main queue after the last
    /// result line, with the progress bar finished, so it can print the summary.
    func start(onFinish: @escaping @MainActor (BatchSummary) -> Void) {
        self.onFinish = onFinish
        startedAt = Date()
        // An empty queue never finishes: there is no last request to call it.
        guard !jobs.isEmpty else { return finishBatch() }
        for (index, job) in jobs.enumerated() {
            queue.add(makeRequest(for: job, index: index))
        }
        // The queue finishes after every request's own blocks have run, so every result is in.
        queue.go { [self] in finishBatch() }
    }

    private func makeRequest(for job: FetchJob, index: Int) -> HTTPRequest {
        let request = HTTPRequest(url: job.url)
        if let body = job.body {
            request.requestMethod = job.method
            request.postBody = body
        }
        // In a queue, a request calls back on the queue's callback queue, which `RequestQueue`
        // sets to the main queue: the blocks below assume the main actor. They hold the batch,
        // whose queue holds the request only until it is done, so the cycle ends by itself.
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
        queue.progress?.prepareForOutputLine()
        Console.out(ReportFormatter.line(for: result))
    }

    private func finishBatch() {
        // The bar's last line must be complete before anything else is printed.
        queue.progress?.finish()
        let summary = BatchSummary(results: results.compactMap { $0 }, seconds: Date().timeIntervalSince(startedAt))
        let onFinish = onFinish
        self.onFinish = nil
        onFinish?(summary)
    }
}
