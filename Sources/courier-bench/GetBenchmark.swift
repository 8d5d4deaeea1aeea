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
        /// Each GET is a plain HTTPRequest carrying headers of the same names and lengths as a
        /// signed one's, fixed: what sending them costs without signing (the floor under `--s3`).
        var sendsS3Headers = false
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
        if options.signsForS3 {
            // Configured once for the class, as an application talking to one service would.
            var endpoint = URLComponents()
            endpoint.scheme = url.scheme
            endpoint.host = url.host
            endpoint.port = url.port
            S3Request.defaultEndpoint = endpoint.url
            S3Request.sharedAccessKey = "AKIDEXAMPLE"
            S3Request.sharedSecretAccessKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
        }
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
        let request: HTTPRequest
        if options.signsForS3 {
            let path = url.path.split(separator: "/", maxSplits: 1).map(String.init)
            request = S3ObjectRequest(bucket: path.first ?? "", key: path.count > 1 ? path[1] : "")
        } else {
            request = HTTPRequest(url: url)
            if options.sendsS3Headers {
                for (name, value) in Self.s3Headers { request.addRequestHeader(name, value: value) }
            }
        }
        configure(request)
        return request
    }

    /// What a signed GET adds, at the same lengths (the signature's hex is any 64 digits).
    private static let s3Headers = [
        ("x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("x-amz-date", "20261205T120000Z"),
        (
            "Authorization",
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261205/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
                + "Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        ),
    ]

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
