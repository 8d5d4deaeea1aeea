import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Large streamed uploads to nginx, and compressed responses from nginx and httpbin.
final class BodiesAndCompressionInteropTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-interop7")
    }

    func testThatATwoGiBSparseFileStreamsToNginxWithFlatMemory() throws {
        if ChildProcess.role == "sparse-upload" {
            try uploadSparseFile()
            return
        }
        try skipIfQuickRun()
        let result = try ChildProcess.run(
            test: "InteropTests.BodiesAndCompressionInteropTests/testThatATwoGiBSparseFileStreamsToNginxWithFlatMemory",
            role: "sparse-upload", timeout: 600, measuresMemory: true)
        XCTAssertEqual(result.status, 0, result.output)
        let report = try result.report("sparse-upload")
        let peak = try XCTUnwrap(report.peakRSSMiB)
        XCTAssertLessThan(peak, 64, "peak RSS in MiB while uploading 2 GiB")
        XCTAssertNotNil(report.fields["serverMD5"])
        XCTAssertEqual(report.fields["serverMD5"], report.fields["localMD5"], "byte-identical on the server")
    }

    /// The child's part: a 2 GiB sparse file PUT to nginx's DAV location.
    private func uploadSparseFile() throws {
        let servers = try InteropServers.shared
        let size: Int64 = 2 << 30
        let path = directory.appendingPathComponent("sparse.bin").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        // A few real bytes at the start, the middle and the end; holes between.
        for offset in [Int64(0), size / 2, size - 16] {
            let marker = Array("courier \(offset)".utf8.prefix(16))
            XCTAssertEqual(pwrite(descriptor, marker, marker.count, off_t(offset)), marker.count)
        }
        XCTAssertEqual(ftruncate(descriptor, off_t(size)), 0)
        close(descriptor)

        let name = "sparse-\(UUID().uuidString).bin"
        let request = HTTPRequest(url: servers.nginxURL("/upload/\(name)"))
        request.requestMethod = "PUT"
        request.postBodyFilePath = path
        request.timeOutSeconds = 60
        let progress = RecordingUploadProgress()
        request.uploadProgressDelegate = progress
        let started = Date()
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 201)
        XCTAssertEqual(progress.lastFraction, 1.0)
        let seconds = Date().timeIntervalSince(started)
        let serverMD5 = try servers.md5(ofUploaded: name)
        let localMD5 = try ExternalTool.md5(of: URL(fileURLWithPath: path))
        ChildProcess.report([
            "seconds": String(format: "%.1f", seconds), "serverMD5": serverMD5, "localMD5": localMD5,
        ])
    }

    func testThatGzipFromNginxDecodesInMemoryAndOnDiskInBothModes() throws {
        let servers = try InteropServers.shared
        let name = "gz/\(UUID().uuidString).txt"
        try servers.makeFile(named: name, size: 500_000)
        let expected = TestServer.deterministicBytes(count: 500_000)
        for waits in [true, false] {
            let inMemory = HTTPRequest(url: servers.nginxURL("/gzip/\(name)"))
            inMemory.shouldWaitToInflateCompressedResponses = waits
            inMemory.startSynchronous()
            XCTAssertNil(inMemory.error)
            XCTAssertTrue(inMemory.isResponseCompressed, "nginx gzipped it")
            XCTAssertEqual(inMemory.responseData(), expected)

            let destination = directory.appendingPathComponent("nginx-\(waits).txt").path
            let toDisk = HTTPRequest(url: servers.nginxURL("/gzip/\(name)"))
            toDisk.shouldWaitToInflateCompressedResponses = waits
            toDisk.downloadDestinationPath = destination
            toDisk.startSynchronous()
            XCTAssertNil(toDisk.error)
            XCTAssertEqual(FileManager.default.contents(atPath: destination), expected)
        }
    }

    func testThatGzipAndDeflateFromHTTPBinDecode() throws {
        struct Reply: Decodable {
            let gzipped: Bool?
            let deflated: Bool?
        }
        let servers = try InteropServers.shared
        for (path, waits) in [("/gzip", true), ("/gzip", false), ("/deflate", true), ("/deflate", false)] {
            let request = HTTPRequest(url: servers.httpbinURL(path))
            request.shouldWaitToInflateCompressedResponses = waits
            request.startSynchronous()
            XCTAssertNil(request.error, path)
            XCTAssertTrue(request.isResponseCompressed, path)
            let reply = try JSONDecoder().decode(Reply.self, from: try XCTUnwrap(request.responseData(), path))
            XCTAssertTrue(reply.gzipped ?? reply.deflated ?? false, path)

            let destination = directory.appendingPathComponent("httpbin\(path.dropFirst())-\(waits).json").path
            let toDisk = HTTPRequest(url: servers.httpbinURL(path))
            toDisk.shouldWaitToInflateCompressedResponses = waits
            toDisk.downloadDestinationPath = destination
            toDisk.startSynchronous()
            XCTAssertNil(toDisk.error, path)
            let onDisk = try JSONDecoder().decode(
                Reply.self, from: try XCTUnwrap(FileManager.default.contents(atPath: destination)))
            XCTAssertTrue(onDisk.gzipped ?? onDisk.deflated ?? false, path)
        }
    }
}

/// Remembers the last upload fraction.
final class RecordingUploadProgress: ProgressDelegate, @unchecked Sendable {
    // @unchecked Sendable: `fraction` is guarded by `lock`.
    private let lock = NSLock()
    private var fraction = 0.0
    func setProgress(_ progress: Double) {
        lock.lock()
        fraction = progress
        lock.unlock()
    }
    var lastFraction: Double {
        lock.lock()
        defer { lock.unlock() }
        return fraction
    }
}
