// Every way a program waits for a NetworkQueue, one per run: `courier-waiting-styles STYLE`.
// Each starts the test server, queues 20 downloads whose callbacks go to the main queue (or to
// a private serial queue), waits in its style, and prints "STYLE: 20 finished" before it exits 0.
// The CLI tests run each with a deadline: a wait that hangs fails its test.
import Courier
import CourierTestServer
import Foundation

let style = CommandLine.arguments.dropFirst().first ?? "top-level"
let server = try TestServer()
let count = 20

/// Counts the requests that finished, on the queue's callback queue.
final class Counter: @unchecked Sendable {
    // @unchecked Sendable: `finished` is touched only under `lock`.
    private let lock = NSLock()
    private var finished = 0
    var value: Int { lock.withLock { finished } }
    func requestFinished(_ request: HTTPRequest) { lock.withLock { finished += 1 } }
    /// Waits for the queue from inside a callback of its own request: Courier stops the
    /// program with a message instead of hanging.
    func waitInsideOwnCallback(_ request: HTTPRequest) {
        (request.userInfo?["queue"] as? NetworkQueue)?.waitUntilAllOperationsAreFinished()
    }
}

let counter = Counter()

func makeQueue(callbackQueue: DispatchQueue = .main) -> NetworkQueue {
    let queue = NetworkQueue()
    queue.callbackQueue = callbackQueue
    queue.delegate = counter
    queue.setRequestDidFinishSelector(Counter.requestFinished)
    for index in 0..<count {
        let request = HTTPRequest(url: server.url(.bytes(1_000 + index)))
        request.userInfo = ["queue": queue]
        queue.addOperation(request)
    }
    return queue
}

func report() -> Never {
    print("\(style): \(counter.value) finished")
    exit(counter.value == count ? 0 : 1)
}

func waitThenReport(_ queue: NetworkQueue) -> Never {
    queue.go()
    queue.waitUntilAllOperationsAreFinished()
    report()
}

/// `RunLoop.main.run()`, as a program without async code calls it (top-level code with an
/// `await` elsewhere is asynchronous, where the call itself is unavailable).
func runTheMainRunLoop() -> Never {
    RunLoop.main.run()
    exit(1)
}

switch style {
case "top-level":
    // Top-level code on the main thread, before any await.
    waitThenReport(makeQueue())
case "top-level-after-await":
    // After an await, top-level code runs as main-queue blocks on a thread that is not the main
    // thread (Linux's dispatchMain parks the main thread): the wait used to hang here for ever.
    let first = try await HTTPRequest(url: server.url(.bytes(10))).response()
    print("awaited \(first.responseStatusCode)")
    waitThenReport(makeQueue())
case "main-actor":
    let queue = makeQueue()
    Task { @MainActor in waitThenReport(queue) }
    dispatchMain()
case "dispatch-main":
    let queue = makeQueue()
    DispatchQueue.main.async { waitThenReport(queue) }
    dispatchMain()
case "run-loop":
    // Inside a main-queue block run by the run loop, which does not run the main queue again
    // while it is inside one.
    let queue = makeQueue()
    DispatchQueue.main.async { waitThenReport(queue) }
    runTheMainRunLoop()
case "private-queue":
    // Waiting on the serial queue the callbacks go to.
    let callbacks = DispatchQueue(label: "private-callbacks")
    let queue = makeQueue(callbackQueue: callbacks)
    callbacks.async { waitThenReport(queue) }
    dispatchMain()
case "background-thread":
    let queue = makeQueue()
    Thread.detachNewThread { waitThenReport(queue) }
    dispatchMain()
case "inside-own-callback":
    let queue = makeQueue()
    queue.setRequestDidFinishSelector(Counter.waitInsideOwnCallback)
    waitThenReport(queue)
case "all-finished":
    let queue = makeQueue()
    await queue.allFinished()
    report()
case "all-finished-in-task":
    let queue = makeQueue()
    let task = Task.detached { await queue.allFinished() }
    await task.value
    report()
case "finished-requests":
    let queue = makeQueue()
    var seen = Set<ObjectIdentifier>()
    for await request in queue.finishedRequests { seen.insert(ObjectIdentifier(request)) }
    print("streamed \(seen.count) distinct")
    report()
default:
    print("unknown style \(style)")
    exit(2)
}
