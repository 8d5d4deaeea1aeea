import Courier
import Foundation

/// `courier-bench queued URL N C`: N GETs added to a NetworkQueue before `go()`, then run C at a
/// time. What a queue costs per request it holds: the process's resident memory (VmRSS) before
/// the first request is made and after the last one is added, before any has started; the
/// difference goes out as `queued_kib=` on the report line. Bodies are counted and let go with
/// their requests, as in `get`.
final class QueuedBenchmark: @unchecked Sendable {
    // @unchecked Sendable: `report` is touched only on `callbacks` (a serial queue) once the
    // queue runs, and read after `done` is signalled.
    private let url: URL
    private let count: Int
    private let inFlight: Int
    private let configure: @Sendable (HTTPRequest) -> Void
    private let callbacks = DispatchQueue(label: "courier-bench.callbacks")
    private let queue = NetworkQueue()
    private let done = DispatchSemaphore(value: 0)
    private var report = BenchReport()

    init(url: URL, count: Int, inFlight: Int, configure: @escaping @Sendable (HTTPRequest) -> Void) {
        self.url = url
        self.count = count
        self.inFlight = inFlight
        self.configure = configure
    }

    func run() -> BenchReport {
        queue.maxConcurrentOperationCount = inFlight
        queue.shouldCancelAllRequestsOnFailure = false
        queue.callbackQueue = callbacks
        let before = Soak.residentKiB()
        for _ in 0..<count {
            let request = HTTPRequest(url: url)
            configure(request)
            request.setCompletionBlock { [unowned self] request in finished(request) }
            request.setFailedBlock { [unowned self] request in finished(request) }
            queue.addOperation(request)
        }
        let queuedKiB = Soak.residentKiB() - before
        let started = Date()
        queue.go()
        done.wait()
        return callbacks.sync {
            var report = self.report
            report.wall = Date().timeIntervalSince(started)
            report.queuedKiB = queuedKiB
            return report
        }
    }

    /// On `callbacks`.
    private func finished(_ request: HTTPRequest) {
        report.record(HTTPRequestOutcome(request, bytes: request.totalBytesRead))
        if report.requests == count { done.signal() }
    }
}
