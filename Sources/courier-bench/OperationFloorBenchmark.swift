import Foundation

/// The floor under a NetworkQueue (issue 33): what corelibs' `Operation` and `OperationQueue`
/// cost per operation when nothing else happens, in the shape `get` drives Courier. N trivial
/// asynchronous operations, C in flight, each added from a serial callback queue to an
/// `OperationQueue` whose underlying queue is a serial queue of its own (as a NetworkQueue's is);
/// `start()` marks the operation executing, as an `HTTPRequest`'s does, and hands it back to the
/// callback queue, which marks it finished (`isFinished` posted, as an `HTTPRequest` posts it) and
/// adds the next. No network, no Courier.
///
/// `--direct` does the same with no OperationQueue: the callback queue dispatches each
/// operation's `start()` to the same serial queue itself. The two differ only by what the
/// OperationQueue does for an operation: its list and count, its work item, its scheduling passes
/// on add and finish, its reaction to `isFinished`.
final class OperationFloorBenchmark: @unchecked Sendable {
    // @unchecked Sendable: `report` and `added` are touched only on `callbacks` (a serial queue)
    // after `run()` hands over, and read after `done` is signalled.
    private let count: Int
    private let inFlight: Int
    private let direct: Bool
    let callbacks = DispatchQueue(label: "courier-bench.callbacks")
    private let starts = DispatchQueue(label: "courier-bench.operationStarts")
    private let queue = OperationQueue()
    private let done = DispatchSemaphore(value: 0)
    private var report = BenchReport()
    private var added = 0

    init(count: Int, inFlight: Int, direct: Bool) {
        self.count = count
        self.inFlight = inFlight
        self.direct = direct
        queue.underlyingQueue = starts
    }

    func run() -> BenchReport {
        let started = Date()
        callbacks.sync {
            for _ in 0..<min(count, inFlight) { add() }
        }
        done.wait()
        return callbacks.sync {
            var report = self.report
            report.wall = Date().timeIntervalSince(started)
            return report
        }
    }

    /// On `callbacks`.
    private func add() {
        let operation = FloorOperation(benchmark: self)
        added += 1
        if direct {
            starts.async { operation.start() }
        } else {
            queue.addOperation(operation)
        }
    }

    /// On `callbacks`: the operation's work is done.
    func finished(_ operation: FloorOperation) {
        operation.finish()
        report.requests += 1
        if added < count { add() }
        if report.requests == count { done.signal() }
    }
}

/// An asynchronous operation that does nothing: started, then finished from the callback queue.
final class FloorOperation: Operation, @unchecked Sendable {
    // @unchecked Sendable: `phase` is read and written under `lock`.
    private let lock = NSLock()
    private var phase = 0  // 0 waiting, 1 executing, 2 finished
    private unowned let benchmark: OperationFloorBenchmark

    init(benchmark: OperationFloorBenchmark) {
        self.benchmark = benchmark
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { phase == 1 } }
    override var isFinished: Bool { lock.withLock { phase == 2 } }

    override func start() {
        lock.withLock { phase = 1 }
        willChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isExecuting")
        benchmark.callbacks.async { [self] in benchmark.finished(self) }
    }

    func finish() {
        lock.withLock { phase = 2 }
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isFinished")
    }
}
