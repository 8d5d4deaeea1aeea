import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// What the gunzip-echo route says it received.
struct GunzipEcho: Decodable {
    let contentEncoding: String
    let receivedLength: Int
    let decodedLength: Int
    let decodedMD5: String
    let decodedBase64: String

    var decoded: Data { Data(base64Encoded: decodedBase64) ?? Data() }
}

/// Compressed responses (lazily and on the fly, in memory and on disk), the bound against
/// decompression bombs, and gzipped request bodies.
final class CompressedTransferTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-gzip")
    }

    override func tearDown() {
        HTTPRequest.maxInflatedBytes = 1 << 30
        super.tearDown()
    }

    func testThatANegativeInflationBoundFailsTheRequestInsteadOfTrapping() {
        // The bound reaches the inflater from inside libcurl's header callback, where a trap
        // would take the whole process down.
        HTTPRequest.maxInflatedBytes = -1
        XCTAssertEqual(HTTPRequest.maxInflatedBytes, 0, "a negative bound counts as none at all")
        let request = HTTPRequest(url: Fixture.url(.gzipped(1_000)))
        request.shouldWaitToInflateCompressedResponses = false
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .compression)
    }

    func testThatGzipAndDeflateDecodeInMemoryInBothModes() throws {
        let size = 300_000
        for route in [Route.gzipped(size), .deflated(size), .gzippedChunked(size)] {
            for waits in [true, false] {
                let request = HTTPRequest(url: Fixture.url(route))
                request.shouldWaitToInflateCompressedResponses = waits
                request.startSynchronous()
                XCTAssertNil(request.error, "\(route)")
                XCTAssertTrue(request.isResponseCompressed)
                XCTAssertEqual(
                    request.responseData(), TestServer.deterministicBytes(count: size), "\(route) waits=\(waits)")
                let raw = try XCTUnwrap(request.rawResponseData)
                if waits {
                    XCTAssertLessThan(raw.count, size, "rawResponseData is the compressed bytes")
                    XCTAssertEqual(Int64(raw.count), request.totalBytesRead)
                } else {
                    XCTAssertEqual(raw, TestServer.deterministicBytes(count: size), "inflated as it arrived")
                }
            }
        }
    }

    func testThatCompressedDownloadsAreInflatedOnDiskInBothModes() throws {
        for waits in [true, false] {
            let destination = directory.appendingPathComponent("gz-\(waits).bin").path
            let request = HTTPRequest(url: Fixture.url(.gzipped(2_000_000)))
            request.downloadDestinationPath = destination
            request.shouldWaitToInflateCompressedResponses = waits
            request.startSynchronous()
            XCTAssertNil(request.error)
            XCTAssertEqual(
                FileManager.default.contents(atPath: destination), TestServer.deterministicBytes(count: 2_000_000))
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination + ".download"))
        }
    }

    func testThatAllowCompressedResponseFalseAsksForNothing() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.allowCompressedResponse = false
        request.startSynchronous()
        XCTAssertNil(try Echo(from: request).header("Accept-Encoding"))

        let asking = HTTPRequest(url: Fixture.url(.echo))
        asking.startSynchronous()
        XCTAssertEqual(try Echo(from: asking).header("Accept-Encoding"), "gzip, deflate")
    }

    func testThatACorruptBodyFailsWithCompressionOrGivesNilLazily() {
        let eager = HTTPRequest(url: Fixture.url(.corruptGzip))
        eager.shouldWaitToInflateCompressedResponses = false
        eager.startSynchronous()
        XCTAssertEqual(eager.error?.type, .compression)

        let lazy = HTTPRequest(url: Fixture.url(.corruptGzip))
        lazy.startSynchronous()
        XCTAssertNil(lazy.error, "the lazy request finished (ASI)")
        XCTAssertNil(lazy.responseData(), "and its body cannot be inflated")
        XCTAssertNotNil(lazy.rawResponseData)

        let download = HTTPRequest(url: Fixture.url(.corruptGzip))
        let destination = directory.appendingPathComponent("corrupt.bin").path
        download.downloadDestinationPath = destination
        download.startSynchronous()
        XCTAssertEqual(download.error?.type, .compression)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    func testThatABombStopsAtTheBoundInEachMode() throws {
        try skipIfQuickRun()
        HTTPRequest.maxInflatedBytes = 64 << 20
        let eager = HTTPRequest(url: Fixture.url(.gzipBomb(gibibytes: 10)))
        eager.shouldWaitToInflateCompressedResponses = false
        eager.timeOutSeconds = 30
        eager.startSynchronous()
        XCTAssertEqual(eager.error?.type, .compression)
        XCTAssertTrue(eager.error?.message.contains("limit") ?? false, "\(String(describing: eager.error))")

        let toDisk = HTTPRequest(url: Fixture.url(.gzipBomb(gibibytes: 10)))
        let destination = directory.appendingPathComponent("bomb.bin").path
        toDisk.downloadDestinationPath = destination
        toDisk.shouldWaitToInflateCompressedResponses = false
        toDisk.timeOutSeconds = 30
        toDisk.startSynchronous()
        XCTAssertEqual(toDisk.error?.type, .compression)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination + ".download"))

        // Lazily, in memory: the request finishes with the compressed bytes; inflating stops at
        // the bound, so responseData() is nil (ASI).
        let lazy = HTTPRequest(url: Fixture.url(.gzipBomb(gibibytes: 10)))
        lazy.timeOutSeconds = 30
        lazy.startSynchronous()
        XCTAssertNil(lazy.error)
        XCTAssertLessThan(lazy.rawResponseData?.count ?? .max, 20 << 20, "only the compressed bytes are kept")
        XCTAssertNil(lazy.responseData())

        // Lazily, to disk: inflating into the destination stops at the bound and fails.
        let lazyToDisk = HTTPRequest(url: Fixture.url(.gzipBomb(gibibytes: 10)))
        let lazyDestination = directory.appendingPathComponent("lazy-bomb.bin").path
        lazyToDisk.downloadDestinationPath = lazyDestination
        lazyToDisk.timeOutSeconds = 30
        lazyToDisk.startSynchronous()
        XCTAssertEqual(lazyToDisk.error?.type, .compression)
        XCTAssertFalse(FileManager.default.fileExists(atPath: lazyDestination))
        XCTAssertFalse(FileManager.default.fileExists(atPath: lazyDestination + ".download"))
    }

    func testThatAGzippedRequestBodyArrivesAsTheOriginalBytes() throws {
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 17) })
        let file = directory.appendingPathComponent("body.bin")
        try body.write(to: file)
        let sources: [(String, (HTTPRequest) -> Void)] = [
            ("memory", { $0.postBody = body }),
            ("file", { $0.postBodyFilePath = file.path }),
            ("stream", { $0.setPostBodyStream(length: Int64(body.count)) { InputStream(data: body) } }),
        ]
        for (name, configure) in sources {
            let request = HTTPRequest(url: Fixture.url(.gunzipEcho))
            request.requestMethod = "PUT"
            request.shouldCompressRequestBody = true
            configure(request)
            request.startSynchronous()
            XCTAssertNil(request.error, name)
            let echo = try JSONDecoder().decode(GunzipEcho.self, from: try XCTUnwrap(request.responseData()))
            XCTAssertEqual(echo.contentEncoding, "gzip", name)
            XCTAssertEqual(echo.decoded, body, name)
            XCTAssertLessThan(echo.receivedLength, body.count, "\(name): compressed on the wire")
        }
    }
}
