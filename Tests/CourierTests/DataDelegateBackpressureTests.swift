import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A slow data consumer holds back its transfer: the bytes Courier has taken from the socket but
/// the consumer has not yet been handed back stay within a few hundred KiB (before the fix ~9
/// MiB queued up: the pending count was zeroed when a batch was taken, not as it was consumed,
/// so a second 4 MiB filled while the first was being handed over).
final class DataDelegateBackpressureTests: ServerTestCase {
    /// What the fix promises: 256 KiB queued, plus the one chunk that crossed the line (at most
    /// the 64 KiB receive buffer), with room for a chunk counted a moment late.
    static let backlogBound = 256 * 1024 + 2 * 64 * 1024

    /// Runs `size` bytes through a data block that sleeps `pause` per call; returns the body,
    /// the largest backlog seen and the seconds it took.
    private func stream(
        _ route: Route, pause: TimeInterval, destination: String? = nil
    ) -> (body: Data, maxBacklog: Int64, seconds: TimeInterval, error: HTTPRequestError?) {
        let request = HTTPRequest(url: server.url(route))
        request.callbackQueue = DispatchQueue(label: "slow-consumer")
        request.timeOutSeconds = 30
        if let destination { request.downloadDestinationPath = destination }
        let collected = Locked((body: Data(), maxBacklog: Int64(0)))
        request.setDataReceivedBlock { request, data in
            // Bytes taken from the socket for this consumer, less those it has already had.
            let received = request.state.withLock { $0.core.transfer?.bytesReceived } ?? 0
            collected.withLock { state in
                state.maxBacklog = max(state.maxBacklog, received - Int64(state.body.count))
                state.body.append(data)
            }
            if pause > 0 { Thread.sleep(forTimeInterval: pause) }
        }
        let start = Date()
        request.startAsynchronous()
        waitUntil(timeout: 120) { request.isFinished }
        let result = collected.current
        return (result.body, result.maxBacklog, Date().timeIntervalSince(start), request.error)
    }

    func testThatASlowConsumerHoldsTheBacklogToAFewHundredKiB() {
        let size = 64 << 20
        let result = stream(.bytes(size), pause: 0.001)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.body.count, size)
        // Every byte, in order (compared whole: an MD5 of 64 MiB takes seconds in a debug build).
        XCTAssertTrue(result.body == TestServer.deterministicBytes(count: size), "every byte, in order")
        XCTAssertLessThanOrEqual(result.maxBacklog, Int64(Self.backlogBound), "backlog \(result.maxBacklog) bytes")
        print("slow consumer: max backlog \(result.maxBacklog) bytes, \(result.seconds) s")
    }

    func testThatAConsumerWithADownloadPathIsHeldBackToo() throws {
        // A download path picks the 512 KiB receive buffer; a data block still takes the body.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("body").path
        let size = 8 << 20
        let result = stream(.bytes(size), pause: 0.001, destination: destination)
        XCTAssertNil(result.error)
        XCTAssertTrue(result.body == TestServer.deterministicBytes(count: size), "every byte, in order")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "a data block takes the body instead")
        XCTAssertLessThanOrEqual(result.maxBacklog, Int64(Self.backlogBound), "backlog \(result.maxBacklog) bytes")
    }

    func testThatAChunkedBodyIsHeldBackToo() {
        // libcurl hands over each chunk of a chunked body (here 1,000 bytes) by itself.
        let size = 2 << 20
        let result = stream(.chunked(size), pause: 0.0005)
        XCTAssertNil(result.error)
        XCTAssertTrue(result.body == TestServer.deterministicBytes(count: size), "every byte, in order")
        XCTAssertLessThanOrEqual(result.maxBacklog, Int64(Self.backlogBound), "backlog \(result.maxBacklog) bytes")
    }

    func testThatCorruptDataHeldWhileTheConsumerCatchesUpFailsWithACompressionError() {
        // The good member inflates to 1 MiB, past the 256 KiB a consumer may hold back, and the
        // consumer sits on its first chunk for a second: the bad part, 100 ms behind, finds the
        // transfer paused, and libcurl hands it over from inside curl_easy_pause once the
        // consumer is down to 128 KiB. That call then returns the CURLE_WRITE_ERROR the write
        // callback caused by refusing it, which the engine used to report instead (fileManagement).
        let delegate = FirstChunkHoldingDataDelegate(holdingFor: 1)
        let request = HTTPRequest(url: server.url(.gzipThenCorrupt(afterMilliseconds: 100)))
        request.shouldWaitToInflateCompressedResponses = false
        request.delegate = delegate
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .compression, request.error?.message ?? "no error")
        XCTAssertEqual(delegate.bytes, 1 << 20, "the good member, whole, and nothing after it")
        XCTAssertEqual([delegate.finished, delegate.failed], [0, 1], "exactly one failure callback")
    }

    func testThatAFastConsumerGetsEverything() {
        let size = 64 << 20
        let result = stream(.bytes(size), pause: 0)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.body.count, size)
        XCTAssertTrue(result.body == TestServer.deterministicBytes(count: size), "every byte, in order")
        print("fast consumer: 64 MiB in \(result.seconds) s, max backlog \(result.maxBacklog) bytes")
    }
}

/// Sits on the first chunk it is handed, as a consumer busy with it would, and counts the rest.
final class FirstChunkHoldingDataDelegate: HTTPRequestDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: a synchronous request calls it on the test's own thread only.
    let hold: TimeInterval
    var bytes = 0
    var finished = 0
    var failed = 0

    init(holdingFor hold: TimeInterval) { self.hold = hold }

    func request(_ request: HTTPRequest, didReceive data: Data) {
        if bytes == 0 { Thread.sleep(forTimeInterval: hold) }
        bytes += data.count
    }
    func requestFinished(_ request: HTTPRequest) { finished += 1 }
    func requestFailed(_ request: HTTPRequest) { failed += 1 }
}
