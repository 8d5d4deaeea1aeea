import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A progress delegate that writes everything down.
final class RecordingProgress: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: `record` is guarded by its lock.
    struct Record {
        var fractions: [Double] = []
        var received: [Int64] = []
        var sent: [Int64] = []
        var downloadIncrements: [Int64] = []
        var uploadIncrements: [Int64] = []
    }

    let record = Locked(Record())

    func setProgress(_ progress: Double) { record.withLock { $0.fractions.append(progress) } }
    func request(_ request: HTTPRequest, didReceiveBytes bytes: Int64) { record.withLock { $0.received.append(bytes) } }
    func request(_ request: HTTPRequest, didSendBytes bytes: Int64) { record.withLock { $0.sent.append(bytes) } }
    func request(_ request: HTTPRequest, incrementDownloadSizeBy bytes: Int64) {
        record.withLock { $0.downloadIncrements.append(bytes) }
    }
    func request(_ request: HTTPRequest, incrementUploadSizeBy bytes: Int64) {
        record.withLock { $0.uploadIncrements.append(bytes) }
    }

    var current: Record { record.current }

    /// The fractions with consecutive repeats removed.
    var distinctFractions: [Double] {
        current.fractions.reduce(into: []) { result, value in
            if result.last != value { result.append(value) }
        }
    }
}

final class ProgressTests: XCTestCase {
    private static let tenMiB = 10 * 1024 * 1024

    func testThatSimpleQueueProgressStepsOnePerRequest() {
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 1
        let progress = RecordingProgress()
        queue.downloadProgressDelegate = progress
        for _ in 0..<4 { queue.addOperation(HTTPRequest(url: Fixture.url(.bytes(1000)))) }
        XCTAssertEqual(queue.totalBytesToDownload, 4)
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(progress.distinctFractions, [0, 0.25, 0.5, 0.75, 1.0])
        XCTAssertEqual(progress.current.fractions.count, 5, "0 at go(), then one call per finished request")
        XCTAssertEqual(progress.current.received, [1, 1, 1, 1])
        XCTAssertEqual(queue.bytesDownloadedSoFar, 4)
        XCTAssertEqual(queue.totalBytesToDownload, 4)
    }

    func testThatAByteProgressDownloadEndsAtExactlyOne() {
        let request = HTTPRequest(url: Fixture.url(.bytes(Self.tenMiB)))
        let progress = RecordingProgress()
        request.downloadProgressDelegate = progress
        let blockBytes = Locked<[Int64]>([])
        let blockIncrements = Locked<[Int64]>([])
        request.setBytesReceivedBlock { _, bytes, total in
            blockBytes.withLock { $0.append(bytes) }
            XCTAssertEqual(total, Int64(Self.tenMiB))
        }
        request.setDownloadSizeIncrementedBlock { _, bytes in blockIncrements.withLock { $0.append(bytes) } }
        request.startSynchronous()
        XCTAssertNil(request.error)

        let record = progress.current
        XCTAssertEqual(record.fractions.last, 1.0)
        XCTAssertEqual(record.fractions, record.fractions.sorted(), "never decreases")
        XCTAssertTrue(record.fractions.allSatisfy { $0 >= 0 && $0 <= 1 })
        XCTAssertEqual(record.received.reduce(0, +), Int64(Self.tenMiB))
        XCTAssertTrue(record.received.allSatisfy { $0 > 0 })
        XCTAssertEqual(record.downloadIncrements, [Int64(Self.tenMiB)])
        XCTAssertEqual(blockBytes.current.reduce(0, +), Int64(Self.tenMiB), "the blocks see the same bytes")
        XCTAssertEqual(blockBytes.current, record.received)
        XCTAssertEqual(blockIncrements.current, [Int64(Self.tenMiB)])
    }

    func testThatAByteProgressUploadFromMemoryEndsAtExactlyOne() throws {
        let body = Data(repeating: 0x61, count: Self.tenMiB)
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.requestMethod = "PUT"
        request.postBody = body
        let progress = RecordingProgress()
        request.uploadProgressDelegate = progress
        let blockBytes = Locked<[Int64]>([])
        let increments = Locked<[Int64]>([])
        request.setBytesSentBlock { _, bytes, total in
            blockBytes.withLock { $0.append(bytes) }
            XCTAssertEqual(total, Int64(Self.tenMiB))
        }
        request.setUploadSizeIncrementedBlock { _, bytes in increments.withLock { $0.append(bytes) } }
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(try Echo(from: request).bodyLength, Self.tenMiB)

        let record = progress.current
        XCTAssertEqual(record.fractions.last, 1.0)
        XCTAssertEqual(record.fractions, record.fractions.sorted(), "never decreases")
        XCTAssertEqual(record.sent.reduce(0, +), Int64(Self.tenMiB))
        XCTAssertEqual(record.uploadIncrements, [Int64(Self.tenMiB)])
        XCTAssertEqual(blockBytes.current.reduce(0, +), Int64(Self.tenMiB))
        XCTAssertEqual(increments.current, [Int64(Self.tenMiB)])
    }

    func testThatTotalBytesReadMovesWhileTheBodyArrivesWithoutAProgressDelegate() {
        // 40 bytes, one every 25 ms: about a second of body.
        let request = HTTPRequest(url: Fixture.url(.trickle(40, intervalMilliseconds: 25)))
        request.startAsynchronous()
        var seenMidway: Int64?
        waitUntil {
            let read = request.totalBytesRead
            if !request.isFinished, read > 0, read < 40 { seenMidway = read }
            return seenMidway != nil || request.isFinished
        }
        XCTAssertNotNil(seenMidway, "totalBytesRead stayed 0 while the body arrived")
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.totalBytesRead, 40)
    }

    func testThatTotalBytesSentMovesWhileTheBodyIsSentWithoutAProgressDelegate() {
        let streams = BoundPair(makeBoundStreams(bufferSize: 4096))
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.setPostBodyStream(length: 2000) { streams.input }
        XCTAssertEqual(streams.output.write([UInt8](repeating: 0x61, count: 1000), maxLength: 1000), 1000)
        request.startAsynchronous()
        // The rest of the body is not written yet: the request cannot finish before it is.
        waitUntil(timeout: 5) { request.totalBytesSent == 1000 }
        XCTAssertFalse(request.isFinished)
        XCTAssertEqual(streams.output.write([UInt8](repeating: 0x62, count: 1000), maxLength: 1000), 1000)
        streams.output.close()
        waitUntil { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(request.totalBytesSent, 2000)
    }

    func testThatAChunkedResponseFallsBackToOneStepAndStillEndsAtOne() {
        let request = HTTPRequest(url: Fixture.url(.chunked(50_000)))
        let progress = RecordingProgress()
        request.downloadProgressDelegate = progress
        request.startSynchronous()
        XCTAssertEqual(progress.current.downloadIncrements, [1])
        XCTAssertEqual(progress.current.received, [1])
        XCTAssertEqual(progress.current.fractions.last, 1.0)
    }

    /// Runs a request to `route` synchronously, recording its download progress and, at each
    /// response's headers, its `showAccurateProgress`.
    private func runRecordingAccuracy(
        _ route: Route
    ) -> (request: HTTPRequest, progress: RecordingProgress, seenAtHeaders: Locked<[Bool]>) {
        let request = HTTPRequest(url: Fixture.url(route))
        let progress = RecordingProgress()
        request.downloadProgressDelegate = progress
        let seenAtHeaders = Locked<[Bool]>([])
        request.setHeadersReceivedBlock { request, _ in
            seenAtHeaders.withLock { $0.append(request.showAccurateProgress) }
        }
        request.startSynchronous()
        return (request, progress, seenAtHeaders)
    }

    func testThatAccurateProgressTurnsOffWhenTheResponseHasNoContentLength() {
        XCTAssertTrue(HTTPRequest(url: Fixture.url(.chunked(50_000))).showAccurateProgress, "on by default")
        let (request, progress, seenAtHeaders) = runRecordingAccuracy(.chunked(50_000))
        XCTAssertNil(request.error)
        XCTAssertEqual(seenAtHeaders.current, [false], "off once the headers of a chunked response arrived")
        XCTAssertFalse(request.showAccurateProgress)
        XCTAssertEqual(progress.current.fractions, [0, 1.0], "simple progress: 0, then 1, nothing between")
        XCTAssertEqual(progress.current.downloadIncrements, [1])
        XCTAssertEqual(progress.current.received, [1])
    }

    func testThatARedirectToAResponseWithAContentLengthKeepsAccurateProgress() {
        let size = 300_000
        let (request, progress, seenAtHeaders) = runRecordingAccuracy(.redirect(302, to: "/bytes/\(size)"))
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData()?.count, size)
        XCTAssertEqual(seenAtHeaders.current, [true, true])
        XCTAssertTrue(request.showAccurateProgress)
        let record = progress.current
        XCTAssertEqual(record.fractions.first, 0)
        XCTAssertEqual(record.fractions.last, 1.0)
        XCTAssertEqual(record.fractions, record.fractions.sorted(), "never decreases")
        XCTAssertEqual(record.received.reduce(0, +), Int64(size))
        XCTAssertEqual(record.downloadIncrements, [Int64(size)], "the redirect's own length does not count")
    }

    func testThatARedirectToAChunkedResponseFallsBackToSimpleProgress() {
        let (request, progress, seenAtHeaders) = runRecordingAccuracy(.redirect(302, to: "/chunked/50000"))
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseData()?.count, 50_000)
        XCTAssertEqual(seenAtHeaders.current, [true, false], "the redirect has a length; the chunked answer none")
        XCTAssertFalse(request.showAccurateProgress)
        XCTAssertEqual(progress.current.fractions, [0, 1.0])
        XCTAssertEqual(progress.current.downloadIncrements.reduce(0, +), 1)
        XCTAssertEqual(progress.current.received.reduce(0, +), 1)
    }

    func testThatAnAccurateQueueCountsBytesAcrossRequests() {
        let queue = NetworkQueue()
        queue.showAccurateProgress = true
        let progress = RecordingProgress()
        queue.downloadProgressDelegate = progress
        let sizes = [100_000, 2_000_000, 30_000]
        for size in sizes { queue.addOperation(HTTPRequest(url: Fixture.url(.bytes(size)))) }
        queue.go()
        waitUntilAllFinished(queue)
        let total = Int64(sizes.reduce(0, +))
        XCTAssertEqual(queue.totalBytesToDownload, total)
        XCTAssertEqual(queue.bytesDownloadedSoFar, total)
        XCTAssertEqual(progress.current.fractions.last, 1.0)
        XCTAssertEqual(progress.current.received.reduce(0, +), total)
        XCTAssertEqual(progress.current.downloadIncrements.reduce(0, +), total)
    }

    func testThatATimeoutRetryTakesBackTheBytesOfTheFailedAttempt() throws {
        let server = try TestServer()
        defer { server.stop() }
        // The first attempt trickles 200 bytes and then stalls past the timeout; the retry gets all.
        let key = UUID().uuidString
        let request = HTTPRequest(url: server.url(.stallMidBodyTimes(key: key, count: 1, bytes: 1000, sent: 200)))
        // Long enough that the first 200 bytes surely arrive before the timeout, even on a busy machine.
        request.timeOutSeconds = 1
        request.numberOfTimesToRetryOnTimeout = 1
        let progress = RecordingProgress()
        request.downloadProgressDelegate = progress
        request.startSynchronous()
        XCTAssertNil(request.error)
        let received = progress.current.received
        XCTAssertTrue(received.contains { $0 < 0 }, "a negative delta when the attempt restarts: \(received)")
        XCTAssertEqual(received.reduce(0, +), 1000)
        XCTAssertEqual(progress.current.fractions.last, 1.0)
    }

    func testThatTenThousandRequestsCompleteInSimpleMode() throws {
        try skipIfQuickRun()
        if ChildProcess.role == "ten-thousand" {
            try runTenThousandRequests()
            return
        }
        let result = try ChildProcess.run(
            test: "CourierTests.ProgressTests/testThatTenThousandRequestsCompleteInSimpleMode", role: "ten-thousand",
            timeout: 300, measuresMemory: true)
        XCTAssertEqual(result.status, 0, result.output)
        _ = try result.report("ten-thousand")
    }

    /// The child's part: 10,000 requests through one queue, then the counts, the time from go()
    /// to queueDidFinish, and the peak memory.
    private func runTenThousandRequests() throws {
        final class Finish: @unchecked Sendable {
            // @unchecked Sendable: `at` is written once on the callback queue, read after the wait.
            var at: Date?
            func queueDone(_ queue: NetworkQueue) { at = Date() }
        }
        let count = 10_000
        let queue = NetworkQueue()
        let finish = Finish()
        queue.delegate = finish
        queue.setQueueDidFinishSelector(Finish.queueDone)
        let failures = Locked(0)
        for _ in 0..<count {
            let request = HTTPRequest(url: Fixture.url(.bytes(1024)))
            request.setFailedBlock { _ in failures.withLock { $0 += 1 } }
            queue.addOperation(request)
        }
        let started = Date()
        queue.go()
        waitUntilAllFinished(queue)
        XCTAssertEqual(failures.current, 0)
        XCTAssertEqual(queue.totalBytesToDownload, Int64(count))
        XCTAssertEqual(queue.bytesDownloadedSoFar, Int64(count))
        let seconds = try XCTUnwrap(finish.at).timeIntervalSince(started)
        ChildProcess.report([
            "totalBytesToDownload": "\(queue.totalBytesToDownload)",
            "bytesDownloadedSoFar": "\(queue.bytesDownloadedSoFar)",
            "go-to-queueDidFinish": String(format: "%.3fs", seconds),
        ])
    }
}
