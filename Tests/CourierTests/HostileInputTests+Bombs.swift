import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Counts what a data delegate is handed, and how the request ended.
final class CountingDataDelegate: HTTPRequestDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: a synchronous request calls it on the test's own thread only.
    var bytes = 0
    var finished = 0
    var failed = 0

    func request(_ request: HTTPRequest, didReceive data: Data) { bytes += data.count }
    func requestFinished(_ request: HTTPRequest) { finished += 1 }
    func requestFailed(_ request: HTTPRequest) { failed += 1 }
}

/// A hostile server sends a decompression bomb: 1 GiB of zeros as about 1 MB of gzip. Every
/// inflation mode stops at `HTTPRequest.maxInflatedBytes`, and the process does not grow by
/// anything near the bomb. CWE-409 (improper handling of highly compressed data).
extension HostileInputTests {
    /// The peak resident size of this process grows by less than `bound` while `body` runs.
    /// Writing 5 to clear_refs resets the peak to the current size first, so an earlier test's
    /// peak cannot hide growth here.
    func assertPeakGrowth(
        below bound: Int, _ what: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
    ) rethrows {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let before = ChildProcess.peakResidentBytes
        try body()
        let growth = ChildProcess.peakResidentBytes - before
        XCTAssertLessThan(growth, bound, "\(what): peak RSS grew by \(growth >> 20) MiB", file: file, line: line)
    }

    func testThatADecompressionBombStopsAtTheBoundInEveryModeWithFlatMemory() throws {
        let limit: Int64 = 16 << 20
        let before = HTTPRequest.maxInflatedBytes
        defer { HTTPRequest.maxInflatedBytes = before }
        HTTPRequest.maxInflatedBytes = limit
        let bomb = server.url(.gzipBomb(gibibytes: 1))
        let bound = 64 << 20

        assertPeakGrowth(below: bound, "lazily, in memory") {
            let lazy = HTTPRequest(url: bomb)
            lazy.startSynchronous()
            XCTAssertNil(lazy.error, "the transfer itself is fine: only the compressed bytes are kept")
            XCTAssertLessThan(lazy.rawResponseData?.count ?? .max, 4 << 20)
            XCTAssertNil(lazy.responseData(), "inflating it stops at the bound")
        }

        assertPeakGrowth(below: bound, "as it arrives") {
            let eager = HTTPRequest(url: bomb)
            eager.shouldWaitToInflateCompressedResponses = false
            eager.startSynchronous()
            XCTAssertEqual(eager.error?.type, .compression)
            XCTAssertLessThanOrEqual(Int64(eager.responseData()?.count ?? 0), limit, "what was inflated, at most")
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bomb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for waits in [true, false] {
            assertPeakGrowth(below: bound, "to a download file, waiting \(waits)") {
                let destination = folder.appendingPathComponent("bomb-\(waits).bin").path
                let download = HTTPRequest(url: bomb)
                download.shouldWaitToInflateCompressedResponses = waits
                download.downloadDestinationPath = destination
                download.startSynchronous()
                XCTAssertEqual(download.error?.type, .compression, "waiting \(waits)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "no half file")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), [], "no temporary file")

        assertPeakGrowth(below: bound, "through a data delegate") {
            let delegate = CountingDataDelegate()
            let streamed = HTTPRequest(url: bomb)
            streamed.shouldWaitToInflateCompressedResponses = false
            streamed.delegate = delegate
            streamed.startSynchronous()
            XCTAssertEqual(streamed.error?.type, .compression)
            XCTAssertLessThanOrEqual(Int64(delegate.bytes), limit, "never more than the bound handed out")
            XCTAssertEqual([delegate.finished, delegate.failed], [0, 1], "exactly one failure callback")
        }
    }
}
