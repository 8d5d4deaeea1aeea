import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// Records each fraction with what the queue and the watched request showed at that moment.
final class RedirectProgressRecorder: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: `samples` is guarded by its lock; the weak references are set before
    // the requests start and read on the callback queue.
    struct Sample {
        var fraction: Double
        var done: Int64
        var total: Int64
        var status: Int
        var bytesRead: Int64
    }

    weak var queue: NetworkQueue?
    weak var request: HTTPRequest?
    let samples = Locked<[Sample]>([])

    func setProgress(_ progress: Double) {
        let sample = Sample(
            fraction: progress, done: queue?.bytesDownloadedSoFar ?? 0, total: queue?.totalBytesToDownload ?? 0,
            status: request?.responseStatusCode ?? 0, bytesRead: request?.totalBytesRead ?? 0)
        samples.withLock { $0.append(sample) }
    }
}

/// A redirect's own response (its head and its discarded body) counts for nothing in progress:
/// the download is the final response, and 1.0 comes only once its body is in.
final class RedirectProgressTests: ServerTestCase {
    /// The final body comes slowly, so that progress is reported many times on its way.
    private let size = 400

    /// Every sample at 1.0, or with the queue's bytes at its total, is one taken once the final
    /// response's whole body was in.
    private func assertNoEarlyCompletion(
        _ samples: [RedirectProgressRecorder.Sample], countsQueue: Bool, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertFalse(samples.isEmpty, file: file, line: line)
        for sample in samples {
            let queueDone = countsQueue && sample.total > 0 && sample.done >= sample.total
            guard sample.fraction >= 1 || queueDone else { continue }
            XCTAssertEqual(sample.status, 200, "1.0 at the redirect: \(sample)", file: file, line: line)
            XCTAssertEqual(
                sample.bytesRead, Int64(size), "1.0 before the body was in: \(sample)", file: file, line: line)
        }
        XCTAssertEqual(samples.last?.fraction, 1.0, file: file, line: line)
    }

    private func redirectingRequest() -> HTTPRequest {
        let target = server.url(.trickle(size, intervalMilliseconds: 1))
        return HTTPRequest(url: server.url(.redirect(302, to: target.absoluteString)))
    }

    func testThatAnAccurateQueueReachesOneOnlyWithTheFinalBody() {
        for addedAfterGo in [false, true] {
            let queue = NetworkQueue()
            queue.showAccurateProgress = true
            let recorder = RedirectProgressRecorder()
            recorder.queue = queue
            queue.downloadProgressDelegate = recorder
            let request = redirectingRequest()
            recorder.request = request
            if addedAfterGo { queue.go() }
            queue.addOperation(request)
            if !addedAfterGo { queue.go() }
            waitUntilAllFinished(queue)
            XCTAssertNil(request.error)
            assertNoEarlyCompletion(recorder.samples.current, countsQueue: true)
            XCTAssertEqual(queue.bytesDownloadedSoFar, Int64(size), "probed: \(!addedAfterGo)")
            XCTAssertEqual(queue.totalBytesToDownload, Int64(size), "probed: \(!addedAfterGo)")
        }
    }

    func testThatASimpleQueueCountsTheRedirectedRequestOnce() {
        let queue = NetworkQueue()
        let recorder = RedirectProgressRecorder()
        recorder.queue = queue
        queue.downloadProgressDelegate = recorder
        let request = redirectingRequest()
        recorder.request = request
        queue.addOperation(request)
        queue.addOperation(HTTPRequest(url: server.url(.bytes(10))))
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertNil(request.error)
        XCTAssertEqual(queue.bytesDownloadedSoFar, 2)
        XCTAssertEqual(request.totalBytesRead, Int64(size))
        XCTAssertEqual(queue.totalBytesToDownload, 2)
        let fractions = recorder.samples.current.map(\.fraction)
        XCTAssertEqual(fractions.first, 0)
        XCTAssertEqual(fractions.last, 1)
        XCTAssertEqual(fractions.filter { $0 > 0 && $0 < 1 }.count, 1, "one step per request: \(fractions)")
    }

    func testThatARequestsOwnDelegateReachesOneOnlyWithTheFinalBody() {
        let recorder = RedirectProgressRecorder()
        let request = redirectingRequest()
        request.callbackQueue = DispatchQueue(label: "redirect-progress")
        recorder.request = request
        request.downloadProgressDelegate = recorder
        let received = Locked<Int64>(0)
        request.setBytesReceivedBlock { _, bytes, _ in received.withLock { $0 += bytes } }
        request.startAsynchronous()
        waitUntil(timeout: 30) { request.isFinished }
        XCTAssertNil(request.error)
        assertNoEarlyCompletion(recorder.samples.current, countsQueue: false)
        XCTAssertEqual(received.current, Int64(size), "the redirect's own body is not counted")
    }
}
