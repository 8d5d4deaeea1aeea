import Courier
import Foundation

/// Runs a batch of jobs through one `NetworkQueue`: each body goes straight to disk (or to
/// standard output), retries wait out their backoff, and the summary comes once every job has
/// its result. `get` and `demo` both fetch through this.
///
/// Without `--accurate` the queue is started before the requests are added, so it sends no HEAD
/// probes and its total grows from each response's Content-Length; with it, they are added
/// first and each GET's size is learned from a HEAD before any body moves.
///
/// Main-actor isolated: every request calls back on the main queue, so the bookkeeping needs no
/// lock; the caller must keep the main queue running (`dispatchMain()`) and the batch alive.
@MainActor
final class DownloadBatch {
    let options: GetOptions
    let destination: DownloadDestination
    let queue = NetworkQueue()
    let reporter: BatchReporter
    let retryPolicy: RetryPolicy
    let cache: DownloadCache?
    private(set) var runs: [JobRun]
    private var results: [FetchResult?]
    private var unfinished: Int
    private var startedAt = Date()
    private var onFinish: (@MainActor (BatchSummary) -> Void)?
    /// Set once the batch stops early (`--fail-fast`, Ctrl-C): nothing new is started.
    private(set) var isEnding = false
    /// `-D FILE`'s descriptor, open for the whole run (standard output's for "-"). A descriptor,
    /// not a FileHandle: Foundation's `write(contentsOf:)` on Linux let a write to a full disk
    /// pass without an error.
    var headerDump: Int32?
    /// `--checksums FILE`, read before the first request.
    var checksumList: ChecksumList?
    /// Every request's delegate: it hands each try's start and headers to the batch.
    let responseWatcher = ResponseWatcher()

    /// A batch of `jobs` saved to `destination` as `options` say.
    init(jobs: [FetchJob], options: GetOptions, destination: DownloadDestination) {
        self.options = options
        self.destination = destination
        runs = jobs.enumerated().map { JobRun(index: $0.offset, job: $0.element) }
        results = Array(repeating: nil, count: jobs.count)
        unfinished = jobs.count
        retryPolicy = RetryPolicy(retries: options.retries)
        cache = options.cacheDirectory.map { DownloadCache(storagePath: $0) }
        queue.name = "courier get"
        queue.maxConcurrentOperationCount = options.jobs
        // Each request calls back on the main queue: the blocks below assume the main actor.
        queue.callbackQueue = .main
        // Bytes, not one step per request: a batch is often one large file and a few small ones.
        queue.showAccurateProgress = true
        // A failure that will be retried must not cancel the others, so with --retry the batch
        // cancels them itself once a failure is final (`endEarly`).
        queue.shouldCancelAllRequestsOnFailure = options.failsFast && options.retries == 0
        let display = options.request.drawsProgress ? ProgressDisplay(queue: queue) : nil
        queue.downloadProgressDelegate = display?.bar
        reporter = BatchReporter(
            isQuiet: options.request.isQuiet, outputIsBody: destination.folder == nil, display: display)
        reporter.writesJSON = options.writesJSON
        reporter.includesHeaders = options.includesHeaders
        responseWatcher.batch = self
    }

    /// Queues every job and starts them; `onFinish` runs on the main queue once each job has its
    /// result, with the progress bar finished, so it can print the summary.
    func start(onFinish: @escaping @MainActor (BatchSummary) -> Void) {
        self.onFinish = onFinish
        startedAt = Date()
        queue.delegate = self
        queue.setQueueDidFinishSelector(DownloadBatch.queueDidFinish)
        if !options.isAccurate { queue.go() }
        for run in runs {
            if let skipped = skippedAsExisting(run) {
                record(skipped, for: run)
                continue
            }
            do {
                try reserveName(for: run)
            } catch {
                record(result(of: run, request: nil, outcome: .failed(reason: "\(error)")), for: run)
                continue
            }
            if findsExistingFile(for: run) {
                probe(run)
                continue
            }
            queue.addOperation(makeRequest(for: run))
        }
        if options.isAccurate { queue.go() }
        if unfinished == 0, queue.requestsCount == 0, !runs.contains(where: { $0.probe != nil }) { finishBatch() }
    }

    /// Records a job's final result, prints its line, and finishes the batch after the last.
    func record(_ result: FetchResult, for run: JobRun) {
        guard !run.isDone else { return }
        run.isDone = true
        run.request = nil
        run.pendingRetry = nil
        if let folder = destination.folder, let name = run.name {
            // A failed download's .part is kept for -c, or for resuming after Ctrl-C; else it goes.
            // A saved one's is spent, or was never written to (a response from the cache).
            if case .saved = result.outcome, let part = run.partPath(in: folder) {
                unlink(part)
            } else if !result.isSuccess, !options.resumes, let part = run.partPath(in: folder) {
                unlink(part)
            }
            if let staging = run.stagingPath { unlink(staging) }
            folder.release(name)
        }
        run.limitWatch?.stop()
        var result = result
        result.responseHead = run.responseHead
        results[run.index] = result
        unfinished -= 1
        reporter.report(result)
        if !result.isSuccess, options.failsFast { endEarly() }
        // A request's blocks run before its queue counts it done: the last one is finished
        // when the queue says so (`queueDidFinish`), so the bar's last draw counts it. A result
        // recorded with no request in the queue finishes the batch now.
        if unfinished == 0, queue.requestsCount == 0 { finishBatch() }
    }

    /// The queue's `queueDidFinishSelector`, on the main queue: it may also run between a
    /// failure and its retry, when the queue is empty for a while.
    private nonisolated func queueDidFinish(_ queue: NetworkQueue) {
        MainActor.assumeIsolated {
            if unfinished == 0 { finishBatch() }
        }
    }

    /// `--fail-fast`: cancels every request still running or waiting, and every pending retry.
    private func endEarly() {
        guard !isEnding else { return }
        isEnding = true
        queue.cancelAllOperations()
        // A -c HEAD runs outside the queue; its end records the run as cancelled.
        for run in runs where !run.isDone { run.probe?.cancel() }
        for run in runs where !run.isDone && run.pendingRetry != nil {
            run.pendingRetry?.cancel()
            record(
                result(of: run, request: nil, outcome: .failed(reason: "Cancelled by --fail-fast before its retry")),
                for: run)
        }
    }

    /// Ctrl-C: the bar is wiped, the summary printed, and the `.part` files stay for `-c`.
    func interrupt() -> BatchSummary {
        isEnding = true
        reporter.display?.clear()
        for run in runs where !run.isDone {
            if let staging = run.stagingPath { unlink(staging) }
        }
        return summary()
    }

    /// Whether the batch is interrupted with downloads left that `-c` can resume.
    var hasPartialDownloads: Bool {
        guard let folder = destination.folder else { return false }
        return runs.contains { run in
            !run.isDone && run.partPath(in: folder).map { FileManager.default.fileExists(atPath: $0) } == true
        }
    }

    private func summary() -> BatchSummary {
        BatchSummary(
            results: results.compactMap { $0 }, jobCount: runs.count, seconds: Date().timeIntervalSince(startedAt))
    }

    private func finishBatch() {
        guard let onFinish else { return }
        self.onFinish = nil
        // The bar's last line must be complete before anything else is printed.
        reporter.display?.finish()
        onFinish(summary())
    }
}
