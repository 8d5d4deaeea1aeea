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

    func testThatAFastConsumerGetsEverything() {
        let size = 64 << 20
        let result = stream(.bytes(size), pause: 0)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.body.count, size)
        XCTAssertTrue(result.body == TestServer.deterministicBytes(count: size), "every byte, in order")
        print("fast consumer: 64 MiB in \(result.seconds) s, max backlog \(result.maxBacklog) bytes")
    }
}
