// A command-line program that awaits: one request, then a queue of downloads waited for with a
// progress bar and a delegate that prints each one above the bar, then a second queue read as
// an AsyncStream of finished requests and awaited to its end.
//
// Runs offline against Courier's test server on 127.0.0.1; put your own URLs in `urls`.
import Courier
import CourierTestServer

let server = try TestServer()
defer { server.stop() }
let urls = (1...20).map { server.url(.bytes($0 * 64 << 10)) }

// 1. One request, awaited. From here on, this top-level code runs as main-queue blocks on a
//    thread that is not the main thread (Linux's dispatchMain parks the main thread).
let greeting = try await HTTPRequest(url: server.url(.text("hello"))).response()
print("greeting: \(greeting.responseString() ?? "")")

// 2. A queue waited for the ASI way, with a delegate that prints above the bar.
final class Printer {
    let bar: ProgressBar
    init(bar: ProgressBar) { self.bar = bar }
    func requestDone(_ request: HTTPRequest) {
        // print(_:) writes the line above the bar and draws the bar again below it.
        bar.print("done \(request.url.lastPathComponent): \(request.totalBytesRead) bytes")
    }
}

let queue = NetworkQueue()
queue.showAccurateProgress = true
let bar = ProgressBar(queue: queue)
let printer = Printer(bar: bar)
queue.delegate = printer
queue.downloadProgressDelegate = bar
queue.setRequestDidFinishSelector(Printer.requestDone)
for url in urls { queue.addOperation(HTTPRequest(url: url)) }
queue.go()
// Waiting here, on the main queue after an await, runs the queue's callbacks while it waits.
queue.waitUntilAllOperationsAreFinished()
bar.finish()

// 3. A queue read as it goes (the stream starts it), then awaited: no thread blocks.
let second = NetworkQueue()
second.maxConcurrentOperationCount = 8
for url in urls { second.addOperation(HTTPRequest(url: url)) }
var bytes: Int64 = 0
var count = 0
for await request in second.finishedRequests {
    bytes += request.totalBytesRead
    count += 1
}
await second.allFinished()
print("streamed \(count) requests, \(bytes) bytes")
