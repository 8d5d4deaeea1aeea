import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A progress delegate that checks each fraction against the queue's counts at that moment
/// (its download counts, or with `countsUpload` its upload counts).
final class QueueFractionRecorder: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: `samples` is guarded by its lock; `queue` is read on the callback queue.
    weak var queue: NetworkQueue?
    var countsUpload = false
    let samples = Locked<[(fraction: Double, done: Int64, total: Int64)]>([])

    func setProgress(_ progress: Double) {
        guard let queue else { return }
        let sample =
            countsUpload
            ? (progress, queue.bytesUploadedSoFar, queue.totalBytesToUpload)
            : (progress, queue.bytesDownloadedSoFar, queue.totalBytesToDownload)
        samples.withLock { $0.append(sample) }
    }
}

final class AccurateProgressTests: ServerTestCase {
    func testThatHeadProbesReachTheServerBeforeAnyGet() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.maxConcurrentOperationCount = 2
        let sizes = [10_000, 20_000, 30_000, 40_000, 50_000, 60_000]
        for size in sizes { queue.addOperation(HTTPRequest(url: server.url(.bytes(size)))) }
        let upload = HTTPRequest(url: server.url(.echo))
        upload.postBody = Data(count: 5000)  // a POST: no probe
        queue.addOperation(upload)
        queue.go()
        waitUntilAllFinished(queue)
        let methods = server.recordedRequests.map(\.method)
        XCTAssertEqual(methods.filter { $0 == "HEAD" }.count, sizes.count, "one probe per GET added before go()")
        let lastHead = methods.lastIndex(of: "HEAD")!
        let firstGet = methods.firstIndex(of: "GET")!
        XCTAssertLessThan(lastHead, firstGet, "every probe before any GET: \(methods)")
        XCTAssertEqual(
            queue.totalBytesToDownload, Int64(sizes.reduce(0, +)) + upload.contentLength,
            "the POST's size came with its own headers")
        XCTAssertEqual(queue.bytesDownloadedSoFar, queue.totalBytesToDownload)
    }

    func testThatEachFractionIsTheBytesSoFarOverTheTotalKnownThen() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let recorder = QueueFractionRecorder()
        recorder.queue = queue
        queue.downloadProgressDelegate = recorder
        let sizes = [1_000_000, 2_000_000, 500_000, 3_000_000]
        for size in sizes { queue.addOperation(HTTPRequest(url: server.url(.bytes(size)))) }
        queue.go()
        waitUntilAllFinished(queue)
        let total = Int64(sizes.reduce(0, +))
        let samples = recorder.samples.current
        XCTAssertGreaterThan(samples.count, 4)
        for sample in samples where sample.done > 0 {
            XCTAssertEqual(sample.total, total, "every size was known before the first byte")
            XCTAssertEqual(sample.fraction, Double(sample.done) / Double(sample.total), accuracy: 1e-12)
        }
        XCTAssertEqual(samples.last?.fraction, 1.0)
        XCTAssertEqual(queue.bytesDownloadedSoFar, total)
        XCTAssertEqual(queue.totalBytesToDownload, total)
    }

    func testThatAFailingProbeFailsItsRequestWithoutRunningIt() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.shouldCancelAllRequestsOnFailure = false
        let delegate = RecordingDelegate()
        let unreachable = HTTPRequest(url: Fixture.refusedURL)
        unreachable.delegate = delegate
        let fine = HTTPRequest(url: server.url(.bytes(100)))
        let noHost = HTTPRequest(url: URL(string: "http://")!)
        let noHostDelegate = RecordingDelegate()
        noHost.delegate = noHostDelegate
        queue.addOperation(unreachable)
        queue.addOperation(fine)
        queue.addOperation(noHost)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(delegate.log.all, ["delegate.failed(connectionFailure)@main"], "the GET itself never started")
        XCTAssertEqual(noHostDelegate.log.all, ["delegate.failed(unableToCreateRequest)@main"])
        XCTAssertTrue(unreachable.isFinished && noHost.isFinished)
        XCTAssertNil(fine.error)
        XCTAssertEqual(server.recordedRequests.map(\.method), ["HEAD", "GET"])
    }

    func testThatRequestsAddedWhileRunningMoveTheTotal() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.maxConcurrentOperationCount = 1
        let recorder = QueueFractionRecorder()
        recorder.queue = queue
        queue.downloadProgressDelegate = recorder
        queue.addOperation(HTTPRequest(url: server.url(.bytes(100_000))))
        queue.go()
        let late = HTTPRequest(url: server.url(.bytes(300_000)))
        queue.addOperation(late)
        waitUntilAllFinished(queue)
        let totals = recorder.samples.current.map(\.total)
        XCTAssertEqual(totals.first, 100_000)
        XCTAssertEqual(totals.last, 400_000, "the late request counted when its headers came")
        XCTAssertEqual(recorder.samples.current.last?.fraction, 1.0)
        XCTAssertEqual(server.recordedRequests.filter { $0.method == "HEAD" }.count, 1, "no probe after go()")
    }

    func testThatChunkedResponsesStillEndTheQueueAtOne() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let progress = RecordingProgress()
        queue.downloadProgressDelegate = progress
        queue.addOperation(HTTPRequest(url: server.url(.chunked(40_000))))
        queue.addOperation(HTTPRequest(url: server.url(.bytes(40_000))))
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(progress.current.fractions.last, 1.0)
        XCTAssertEqual(queue.bytesDownloadedSoFar, queue.totalBytesToDownload)
        XCTAssertEqual(queue.totalBytesToDownload, 40_001, "the chunked one counts as one step")
    }

    func testThatQueueUploadProgressCountsA10MiBBody() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let progress = RecordingProgress()
        queue.uploadProgressDelegate = progress
        let size = 10 * 1024 * 1024
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "PUT"
        request.postBody = Data(repeating: 7, count: size)
        queue.addOperation(request)
        XCTAssertEqual(queue.totalBytesToUpload, Int64(size))
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(queue.bytesUploadedSoFar, Int64(size))
        XCTAssertEqual(progress.current.sent.reduce(0, +), Int64(size))
        XCTAssertEqual(progress.current.fractions.last, 1.0)
        XCTAssertEqual(progress.current.fractions, progress.current.fractions.sorted())
    }

    func testThatAProgressBarAsTheQueuesUploadDelegateShowsUploadBytes() throws {
        let file = try makeTemporaryDirectory().appendingPathComponent("bar.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        let output = try FileHandle(forWritingTo: file)
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let bar = ProgressBar(queue: queue, output: output)
        queue.uploadProgressDelegate = bar
        let request = HTTPRequest(url: server.url(.bytes(100)))
        request.requestMethod = "PUT"
        request.postBody = Data(repeating: 7, count: 10 * 1024 * 1024)
        queue.addOperation(request)
        queue.go()
        waitUntilAllFinished(queue)
        bar.finish()
        try output.close()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        XCTAssertFalse(bar.isTerminal)
        let last = try XCTUnwrap(lines.last)
        XCTAssertTrue(last.contains("10.5 MB / 10.5 MB"), "the upload's bytes, not the 100-byte response: \(last)")
        XCTAssertTrue(last.contains("100%"), String(last))
    }

    func testThatRequestAndQueueDelegatesHearTheSameBytes() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let queueProgress = RecordingProgress()
        let requestProgress = RecordingProgress()
        queue.downloadProgressDelegate = queueProgress
        let request = HTTPRequest(url: server.url(.bytes(2_000_000)))
        request.downloadProgressDelegate = requestProgress
        queue.addOperation(request)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(requestProgress.current.received, queueProgress.current.received)
        XCTAssertEqual(requestProgress.current.received.reduce(0, +), 2_000_000)
        XCTAssertEqual(requestProgress.current.fractions.last, 1.0)
        XCTAssertEqual(queueProgress.current.fractions.last, 1.0)
    }
}

extension AccurateProgressTests {
    func testThatCancellingWhileProbingCancelsTheGetsToo() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.maxConcurrentOperationCount = 2
        let quick = HTTPRequest(url: server.url(.bytes(10)))
        let slow = HTTPRequest(url: server.url(.stall))
        slow.timeOutSeconds = 30
        queue.addOperation(quick)
        queue.addOperation(slow)
        queue.go()
        // The quick probe answers; the slow one stalls; then everything is cancelled.
        waitUntil { self.server.requestsReceived == 2 }
        spinMainQueue(for: 0.2)
        queue.cancelAllOperations()
        waitUntilAllFinished(queue)
        XCTAssertEqual(quick.error?.type, .requestCancelled)
        XCTAssertEqual(slow.error?.type, .requestCancelled)
        XCTAssertTrue(quick.isFinished && slow.isFinished)
        XCTAssertEqual(server.recordedRequests.map(\.method), ["HEAD", "HEAD"], "no GET went out")
    }
}

extension AccurateProgressTests {
    /// Form requests uploading files of these sizes, made in a temporary directory.
    private func formUploads(_ sizes: [Int]) throws -> [FormDataRequest] {
        let directory = try makeTemporaryDirectory()
        return try sizes.map { size in
            let path = try directory.writeFile("\(size).bin", Data(repeating: 0x5a, count: size))
            let form = FormDataRequest(url: server.url(.echo))
            form.setPostValue("\(size)", forKey: "size")
            form.addFile(path, forKey: "file")
            return form
        }
    }

    /// The bytes the echo route received for each request.
    private func receivedBodyLength(_ requests: [HTTPRequest]) throws -> Int64 {
        try requests.reduce(0) { sum, request in
            XCTAssertNil(request.error)
            return sum + Int64(try Echo(from: request).bodyLength)
        }
    }

    func testThatAccurateQueueUploadProgressOfFormFilesEndsAtExactlyOne() throws {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let recorder = QueueFractionRecorder()
        recorder.queue = queue
        recorder.countsUpload = true
        let progress = RecordingProgress()
        queue.uploadProgressDelegate = recorder
        let forms = try formUploads([16 * 1024, 64 * 1024, 257 * 1024])
        for form in forms {
            form.uploadProgressDelegate = progress
            queue.addOperation(form)
        }
        queue.go()
        waitUntilAllFinished(queue)
        let total = try receivedBodyLength(forms)
        XCTAssertGreaterThan(total, Int64(337 * 1024))
        let samples = recorder.samples.current
        XCTAssertEqual(samples.last?.fraction, 1.0)
        XCTAssertTrue(samples.allSatisfy { $0.fraction >= 0 && $0.fraction <= 1 }, "\(samples.map(\.fraction))")
        for sample in samples where sample.total > 0 {
            XCTAssertLessThanOrEqual(sample.done, sample.total, "never more bytes sent than counted")
        }
        XCTAssertEqual(queue.totalBytesToUpload, total)
        XCTAssertEqual(queue.bytesUploadedSoFar, total)
        XCTAssertEqual(progress.current.uploadIncrements.reduce(0, +), total, "each request learned its own size")
    }

    func testThatQueueUploadTotalsCountEachBodyOnceBeforeAndAfterGo() throws {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        queue.maxConcurrentOperationCount = 1
        let progress = RecordingProgress()
        queue.uploadProgressDelegate = progress
        let forms = try formUploads([16 * 1024, 64 * 1024])
        let plain = HTTPRequest(url: server.url(.echo))
        plain.postBody = Data(repeating: 1, count: 30_000)
        queue.addOperation(plain)
        queue.addOperation(forms[0])
        XCTAssertEqual(queue.totalBytesToUpload, 30_000, "a plain body counts when added; a form's is not built yet")
        queue.go()
        // Added while the first ones run: a form and a plain body, counted once each too.
        let latePlain = HTTPRequest(url: server.url(.echo))
        latePlain.postBody = Data(repeating: 2, count: 20_000)
        queue.addOperation(forms[1])
        queue.addOperation(latePlain)
        waitUntilAllFinished(queue)
        let total = try receivedBodyLength([plain, forms[0], forms[1], latePlain])
        XCTAssertEqual(queue.totalBytesToUpload, total)
        XCTAssertEqual(queue.bytesUploadedSoFar, total)
        let record = progress.current
        XCTAssertEqual(record.sent.reduce(0, +), total)
        XCTAssertTrue(record.fractions.allSatisfy { $0 >= 0 && $0 <= 1 })
        XCTAssertEqual(record.fractions.last, 1.0)
    }
}
