// A NetworkQueue of downloads with a terminal progress bar, a delegate told of each request
// through selectors, and one callback when the whole queue is done.
//
// Runs offline against Courier's test server on 127.0.0.1; put your own URLs in `urls`.
import Courier
import CourierTestServer

final class Downloads {
    private(set) var finished = 0
    private(set) var failed = 0

    func requestDone(_ request: HTTPRequest) {
        finished += 1
        print("done   \(request.responseStatusCode) \(request.url.lastPathComponent) \(request.totalBytesRead) bytes")
    }

    func requestWentWrong(_ request: HTTPRequest) {
        failed += 1
        print("failed \(request.url.lastPathComponent): \(request.error?.message ?? "?")")
    }

    func queueDone(_ queue: NetworkQueue) {
        print("all done: \(finished) finished, \(failed) failed")
    }
}

let server = try TestServer()
defer { server.stop() }
let urls = [1 << 10, 64 << 10, 1 << 20, 4 << 20].map { server.url(.bytes($0)) }

let downloads = Downloads()
let queue = NetworkQueue()
queue.maxConcurrentOperationCount = 2
queue.showAccurateProgress = true  // a HEAD per GET first, for exact totals
queue.shouldCancelAllRequestsOnFailure = false
queue.delegate = downloads
queue.setRequestDidFinishSelector(Downloads.requestDone)
queue.setRequestDidFailSelector(Downloads.requestWentWrong)
queue.setQueueDidFinishSelector(Downloads.queueDone)
// Draws on standard error (plain lines when not a terminal), from the queue's own totals.
let bar = ProgressBar(queue: queue)
queue.downloadProgressDelegate = bar

for url in urls { queue.addOperation(HTTPRequest(url: url)) }
queue.go()
// On the main thread this also runs the main queue, where the callbacks arrive.
queue.waitUntilAllOperationsAreFinished()
bar.finish()  // the last draw, and its line ended
exit(downloads.failed == 0 ? 0 : 1)
