import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import Synchronization
import XCTest

/// A cancelled transfer stops: once `cancel()` has returned and the request is finished, no byte
/// of it reaches its file or its data delegate, and nginx sees its connection end, also when the
/// transfer was paused (by the bandwidth budget, a slow data delegate, or a body with nothing
/// ready to send). Before the fix the failure
/// was delivered as soon as the cancel was asked for, while the engine could still be writing the
/// old transfer's bytes into the temporary file that a resume then appended to (the resumed
/// file's MD5 was wrong); and a transfer the bandwidth budget had paused stayed paused for ever
/// once the budget was lifted.
final class CancelledTransferInteropTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-cancel-download")
    }

    override func tearDown() {
        HTTPRequest.maxBandwidthPerSecond = 0
        super.tearDown()
    }

    private static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// The sequence, twenty times: a throttled 64 MiB download is cancelled once its
    /// temporary file holds 8 MiB, then resumed unthrottled into the same file.
    func testThatACancelledThrottledDownloadWritesNothingMoreAndResumesToAnIdenticalFile() throws {
        let servers = try InteropServers.shared
        let size = 64 << 20
        let name = "cancel/\(UUID().uuidString).bin"
        let original = try servers.makeFile(named: name, size: size)
        let expectedMD5 = try ExternalTool.md5(of: original)
        let callbacks = DispatchQueue(label: "cancelled-download-callbacks")

        for round in 1...20 {
            let destination = directory.appendingPathComponent("download-\(round).bin").path
            let temporary = directory.appendingPathComponent("download-\(round).part").path
            let uri = "/files/\(name)?round=\(round)"

            HTTPRequest.maxBandwidthPerSecond = 16 << 20
            let cancelled = HTTPRequest(url: servers.nginxURL(uri))
            cancelled.downloadDestinationPath = destination
            cancelled.temporaryFileDownloadPath = temporary
            cancelled.allowResumeForFileDownloads = true
            cancelled.useCookiePersistence = false
            cancelled.callbackQueue = callbacks
            cancelled.startAsynchronous()
            waitUntil(timeout: 20, message: "round \(round): 8 MiB in the temporary file") {
                Self.size(of: temporary) >= 8 << 20
            }
            cancelled.cancel()
            waitUntil(timeout: 5, message: "round \(round): the cancelled request finishes") { cancelled.isFinished }
            XCTAssertEqual(cancelled.error?.type, .requestCancelled, "round \(round)")
            let sizeAtFinish = Self.size(of: temporary)
            XCTAssertLessThan(sizeAtFinish, Int64(size), "round \(round)")

            // nginx logs the request when its connection ends: short of the whole file.
            let logged = servers.accessLog(waitingFor: 1, timeout: 10) { $0.uri == uri }
            XCTAssertEqual(logged.count, 1, "round \(round): nginx saw the cancelled request end")
            XCTAssertLessThan(logged.first?.bodyBytesSent ?? size, size, "round \(round): not sent whole")
            XCTAssertEqual(Self.size(of: temporary), sizeAtFinish, "round \(round): nothing written after the finish")

            HTTPRequest.maxBandwidthPerSecond = 0
            let resumed = HTTPRequest(url: servers.nginxURL(uri + "&resume"))
            resumed.downloadDestinationPath = destination
            resumed.temporaryFileDownloadPath = temporary
            resumed.allowResumeForFileDownloads = true
            resumed.useCookiePersistence = false
            resumed.startSynchronous()
            XCTAssertNil(resumed.error, "round \(round)")
            XCTAssertEqual(resumed.responseStatusCode, 206, "round \(round)")
            XCTAssertEqual(resumed.partialDownloadSize, sizeAtFinish, "round \(round)")
            XCTAssertEqual(
                try ExternalTool.md5(of: URL(fileURLWithPath: destination)), expectedMD5, "round \(round): byte-identical")
            try? FileManager.default.removeItem(atPath: destination)
        }
    }

    /// Unthrottled, libcurl reads many pieces in one turn of the engine, so a cancel waits for
    /// that turn to end: the file is measured in the failure callback, and must not grow after.
    /// Before the fix the failure came first, and the file grew by megabytes after it.
    func testThatAFastDownloadsFileDoesNotGrowAfterItsCancellationIsDelivered() throws {
        let servers = try InteropServers.shared
        let size = 128 << 20
        let name = "cancel-fast/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: size)
        let callbacks = DispatchQueue(label: "fast-cancel-callbacks")

        for round in 1...20 {
            let temporary = directory.appendingPathComponent("fast-\(round).part").path
            let uri = "/files/\(name)?fast=\(round)"
            let request = HTTPRequest(url: servers.nginxURL(uri))
            request.downloadDestinationPath = directory.appendingPathComponent("fast-\(round).bin").path
            request.temporaryFileDownloadPath = temporary
            request.allowResumeForFileDownloads = true
            request.useCookiePersistence = false
            request.callbackQueue = callbacks
            let sizeAtFailure = Synchronization.Mutex<Int64>(-1)
            request.setFailedBlock { _ in sizeAtFailure.withLock { $0 = Self.size(of: temporary) } }
            request.startAsynchronous()
            let deadline = Date(timeIntervalSinceNow: 10)
            while Self.size(of: temporary) < 4 << 20, !request.isFinished, Date() < deadline { usleep(200) }
            request.cancel()
            waitUntil(timeout: 5, message: "round \(round): the cancelled request finishes") { request.isFinished }
            guard request.error?.type == .requestCancelled else { continue }  // it won the race
            _ = servers.accessLog(waitingFor: 1, timeout: 5) { $0.uri == uri }
            usleep(50_000)
            XCTAssertEqual(
                Self.size(of: temporary), sizeAtFailure.withLock { $0 }, "round \(round): written after the failure")
            try? FileManager.default.removeItem(atPath: temporary)
        }
    }

    /// A download paused by the bandwidth budget runs again when the budget is lifted.
    func testThatATransferPausedByTheBudgetRunsOnWhenTheBudgetIsLifted() throws {
        let servers = try InteropServers.shared
        let size = 8 << 20
        let name = "lift/\(UUID().uuidString).bin"
        let original = try servers.makeFile(named: name, size: size)
        let destination = directory.appendingPathComponent("lifted.bin").path

        // 256 KiB a second: the download would take 32 s.
        HTTPRequest.maxBandwidthPerSecond = 256 << 10
        let request = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
        request.downloadDestinationPath = destination
        request.useCookiePersistence = false
        request.callbackQueue = DispatchQueue(label: "lifted-budget-callbacks")
        request.startAsynchronous()
        waitUntil(timeout: 10, message: "the download begins") { request.totalBytesRead > 0 }
        HTTPRequest.maxBandwidthPerSecond = 0
        waitUntil(timeout: 10, message: "the download ends soon after the budget is lifted") { request.isFinished }
        XCTAssertNil(request.error)
        XCTAssertEqual(
            try ExternalTool.md5(of: URL(fileURLWithPath: destination)), try ExternalTool.md5(of: original))
    }

    /// Waits for nginx to log `uri`, which it does once the request's connection has ended.
    private func loggedEnd(of uri: String, _ servers: InteropServers) -> AccessLogEntry? {
        servers.accessLog(waitingFor: 1, timeout: 5) { $0.uri == uri }.first
    }

    func testThatCancellingADownloadPausedByTheBudgetEndsItsConnectionAndLeavesNoFile() throws {
        let servers = try InteropServers.shared
        let size = 8 << 20
        let name = "paused-budget/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: size)
        let destination = directory.appendingPathComponent("budget.bin").path
        let uri = "/files/\(name)"

        // 128 KiB a second: paused most of the time.
        HTTPRequest.maxBandwidthPerSecond = 128 << 10
        let request = HTTPRequest(url: servers.nginxURL(uri))
        request.downloadDestinationPath = destination
        request.useCookiePersistence = false
        request.callbackQueue = DispatchQueue(label: "paused-budget-callbacks")
        request.startAsynchronous()
        waitUntil(timeout: 10, message: "some bytes arrive") { request.totalBytesRead > 0 }
        usleep(300_000)
        request.cancel()
        waitUntil(timeout: 5, message: "the cancelled request finishes") { request.isFinished }
        XCTAssertEqual(request.error?.type, .requestCancelled)
        let entry = try XCTUnwrap(loggedEnd(of: uri, servers), "nginx saw the connection end")
        XCTAssertLessThan(entry.bodyBytesSent, size)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + ".download"), "no partial file")
    }

    func testThatCancellingADownloadPausedForASlowDataDelegateDeliversNothingMore() throws {
        let servers = try InteropServers.shared
        let size = 16 << 20
        let name = "paused-consumer/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: size)
        let uri = "/files/\(name)"

        let received = Synchronization.Mutex(0)
        let request = HTTPRequest(url: servers.nginxURL(uri))
        request.useCookiePersistence = false
        request.callbackQueue = DispatchQueue(label: "paused-consumer-callbacks")
        // 20 ms a chunk: the backlog fills and the engine pauses the transfer.
        request.setDataReceivedBlock { _, data in
            received.withLock { $0 += data.count }
            usleep(20_000)
        }
        request.startAsynchronous()
        waitUntil(timeout: 10, message: "the consumer is behind") { received.withLock { $0 } >= 512 << 10 }
        request.cancel()
        waitUntil(timeout: 5, message: "the cancelled request finishes") { request.isFinished }
        XCTAssertEqual(request.error?.type, .requestCancelled)
        let atFinish = received.withLock { $0 }
        let entry = try XCTUnwrap(loggedEnd(of: uri, servers), "nginx saw the connection end")
        XCTAssertLessThan(entry.bodyBytesSent, size)
        XCTAssertEqual(received.withLock { $0 }, atFinish, "no chunk after the request finished")
        XCTAssertLessThan(atFinish, size)
    }

    func testThatCancellingAnUploadPausedForItsBodyEndsItsConnection() throws {
        let servers = try InteropServers.shared
        let uri = "/upload/paused-producer-\(UUID().uuidString).bin"
        let pipe = Pipe()
        defer { try? pipe.fileHandleForWriting.close() }
        let path = "/proc/self/fd/\(pipe.fileHandleForReading.fileDescriptor)"

        let request = HTTPRequest(url: servers.nginxURL(uri))
        request.requestMethod = "PUT"
        request.useCookiePersistence = false
        request.callbackQueue = DispatchQueue(label: "paused-producer-callbacks")
        // 64 KiB, then nothing: the reader waits on the pipe and the transfer pauses for it.
        request.setPostBodyStream(length: nil) { InputStream(fileAtPath: path)! }
        try pipe.fileHandleForWriting.write(contentsOf: Data(count: 64 << 10))
        request.startAsynchronous()
        waitUntil(timeout: 10, message: "the first bytes are sent") { request.totalBytesSent >= 64 << 10 }
        usleep(200_000)
        request.cancel()
        waitUntil(timeout: 5, message: "the cancelled request finishes") { request.isFinished }
        XCTAssertEqual(request.error?.type, .requestCancelled)
        XCTAssertNotNil(loggedEnd(of: uri, servers), "nginx saw the connection end")
    }
}
