import Courier
import Foundation

/// N GETs through a NetworkQueue with C in flight and at most 2×C queued, so memory measures
/// transfers, not N request objects. Bodies are counted as they complete and let go with their
/// requests.
final class GetBenchmark: @unchecked Sendable {
    // @unchecked Sendable: `report`, `started` and `added` are touched only on `callbacks`
    // (a serial queue) after `run()` hands over, and read after `done` is signalled.
    struct Options {
        var synchronous = false
        var accurateProgress = false
        var usesDelegate = false
        /// Each GET is an S3ObjectRequest signed with SigV4 (the URL's first path segment as the
        /// bucket, the rest as the key): what signing costs beside the same GET unsigned.
        var signsForS3 = false
    }

    private let url: URL
    private let count: Int
    private let inFlight: Int
    private let options: Options
    private let configure: @Sendable (HTTPRequest) -> Void
    private let callbacks = DispatchQueue(label: "courier-bench.callbacks")
    private let queue = NetworkQueue()
    private let done = DispatchSemaphore(value: 0)
    private var report = BenchReport()
    private var added = 0
    private lazy var delegate = BenchDelegate(benchmark: self)
    private let progress = CountingProgress()

    init(url: URL, count: Int, inFlight: Int, options: Options, configure: @escaping @Sendable (HTTPRequest) -> Void) {
        self.url = url
        self.count = count
        self.inFlight = inFlight
        self.options = options
        self.configure = configure
    }

    func run() -> BenchReport {
        if options.synchronous { return runSynchronously() }
        queue.maxConcurrentOperationCount = inFlight
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = callbacks
        if options.accurateProgress {
            queue.showAccurateProgress = true
            queue.downloadProgressDelegate = progress
        }
        let started = Date()
        callbacks.sync {
            for _ in 0..<min(count, 2 * inFlight) { addRequest() }
        }
        queue.go()
        done.wait()
        return callbacks.sync {
            var report = self.report
            report.wall = Date().timeIntervalSince(started)
            return report
        }
    }

    private func runSynchronously() -> BenchReport {
        let started = Date()
        for _ in 0..<count {
            let request = makeRequest()
            request.startSynchronous()
            report.record(outcome(of: request))
        }
        report.wall = Date().timeIntervalSince(started)
        return report
    }

    private func makeRequest() -> HTTPRequest {
        let request = options.signsForS3 ? makeS3Request() : HTTPRequest(url: url)
        configure(request)
        return request
    }

    private func makeS3Request() -> HTTPRequest {
        let path = url.path.split(separator: "/", maxSplits: 1).map(String.init)
        let request = S3ObjectRequest(bucket: path.first ?? "", key: path.count > 1 ? path[1] : "")
        var endpoint = URLComponents()
        endpoint.scheme = url.scheme
        endpoint.host = url.host
        endpoint.port = url.port
        request.endpoint = endpoint.url
        request.accessKey = "AKIDEXAMPLE"
        request.secretAccessKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        return request
    }

    /// On `callbacks`.
    private func addRequest() {
        let request = makeRequest()
        if options.usesDelegate {
            request.delegate = delegate
        } else {
            request.setCompletionBlock { [unowned self] request in finished(request) }
            request.setFailedBlock { [unowned self] request in finished(request) }
        }
        added += 1
        queue.addOperation(request)
    }

    /// On `callbacks`.
    func finished(_ request: HTTPRequest) {
        report.record(outcome(of: request))
        if added < count { addRequest() }
        if report.requests == count { done.signal() }
    }

    private func outcome(of request: HTTPRequest) -> HTTPRequestOutcome {
        HTTPRequestOutcome(request, bytes: request.totalBytesRead)
    }
}

/// The `--delegate` form.
final class BenchDelegate: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: called only on the benchmark's serial callback queue.
    unowned let benchmark: GetBenchmark
    init(benchmark: GetBenchmark) { self.benchmark = benchmark }
    func requestFinished(_ request: HTTPRequest) { benchmark.finished(request) }
    func requestFailed(_ request: HTTPRequest) { benchmark.finished(request) }
}

/// The `--accurate-progress` listener: counts, draws nothing.
final class CountingProgress: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: called only on the benchmark's serial callback queue.
    private(set) var calls = 0
    func setProgress(_ progress: Double) { calls += 1 }
}
