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

    /// ASI's postLength is what goes on the wire: with shouldCompressRequestBody, the gzipped
    /// size, for a body in memory and one on disk alike. It is the Content-Length sent and what
    /// accurate upload progress counts, and the server decodes the original bytes.
    func testThatPostLengthIsTheCompressedSizeSentAsContentLengthAndCountedByUploadProgress() throws {
        let server = try TestServer()
        defer { server.stop() }
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: ($0 / 7) % 23) })
        let half = body.count / 2
        let whole = directory.appendingPathComponent("whole.bin")
        let secondHalf = directory.appendingPathComponent("second-half.bin")
        try body.write(to: whole)
        try body.suffix(from: half).write(to: secondHalf)
        let written = directory.appendingPathComponent("written.bin").path
        let sources: [(String, (HTTPRequest) -> Void)] = [
            ("postBody", { $0.postBody = body }),
            (
                "appendPostData",
                {
                    $0.appendPostData(body.prefix(half)); $0.appendPostData(body.suffix(from: half))
                }
            ),
            ("appendPostData(fromFile:) into memory", { $0.appendPostData(fromFile: whole.path) }),
            ("postBodyFilePath", { $0.postBodyFilePath = whole.path }),
            (
                "pieces streamed from disk",
                {
                    $0.shouldStreamPostDataFromDisk = true
                    $0.appendPostData(body.prefix(half))
                    $0.appendPostData(fromFile: secondHalf.path)
                }
            ),
            (
                "a body file written by appends",
                {
                    $0.shouldStreamPostDataFromDisk = true
                    $0.postBodyFilePath = written
                    $0.appendPostData(body.prefix(half))
                    $0.appendPostData(fromFile: secondHalf.path)
                }
            ),
        ]
        for (name, configure) in sources {
            server.resetRecords()
            let request = HTTPRequest(url: server.url(.gunzipEcho))
            request.requestMethod = "PUT"
            request.shouldCompressRequestBody = true
            configure(request)
            let postLength = request.postLength
            XCTAssertGreaterThan(postLength, 0, name)
            XCTAssertLessThan(postLength, Int64(body.count) / 4, "\(name): the gzipped size")
            let sent = Locked<[(bytes: Int64, total: Int64)]>([])
            request.setBytesSentBlock { _, bytes, total in sent.withLock { $0.append((bytes, total)) } }
            let queue = NetworkQueue()
            queue.showAccurateProgress = true
            queue.addOperation(request)
            XCTAssertEqual(queue.totalBytesToUpload, postLength, "\(name): the queue counts what will be sent")
            queue.go()
            waitUntilAllFinished(queue)
            XCTAssertNil(request.error, name)
            XCTAssertEqual(request.postLength, postLength, name)
            let recorded = try XCTUnwrap(server.recordedRequests.last, name)
            XCTAssertEqual(recorded.header("Content-Length"), "\(postLength)", name)
            XCTAssertNil(recorded.header("Transfer-Encoding"), name)
            let echo = try JSONDecoder().decode(GunzipEcho.self, from: try XCTUnwrap(request.responseData()))
            XCTAssertEqual(echo.contentEncoding, "gzip", name)
            XCTAssertEqual(Int64(echo.receivedLength), postLength, name)
            XCTAssertEqual(echo.decoded, body, name)
            XCTAssertEqual(request.totalBytesSent, postLength, name)
            XCTAssertEqual(queue.totalBytesToUpload, postLength, name)
            XCTAssertEqual(queue.bytesUploadedSoFar, postLength, name)
            let samples = sent.withLock { $0 }
            XCTAssertEqual(samples.map(\.bytes).reduce(0, +), postLength, name)
            XCTAssertEqual(Set(samples.map(\.total)), [postLength], "\(name): the total each call gives")
        }

        // A stream's gzipped size is known only once it has been sent: unknown, as a stream of
        // unknown length is, and sent chunked.
        let stream = HTTPRequest(url: server.url(.gunzipEcho))
        stream.shouldCompressRequestBody = true
        stream.setPostBodyStream(length: Int64(body.count)) { InputStream(data: body) }
        XCTAssertEqual(stream.postLength, 0)
        stream.startSynchronous()
        XCTAssertNil(stream.error)
        XCTAssertEqual(server.recordedRequests.last?.header("Transfer-Encoding"), "chunked")
    }

    /// The gzipped size is measured once and kept while the body stays the same: a body file
    /// changed after `postLength` was read is measured again when the request starts, and what
    /// is sent is the file as it is then, under its own length.
    func testThatABodyFileChangedAfterPostLengthWasReadIsSentWhole() throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = directory.appendingPathComponent("growing.bin")
        let first = Data(repeating: 0x61, count: 100_000)
        try first.write(to: file)
        let request = HTTPRequest(url: server.url(.gunzipEcho))
        request.shouldCompressRequestBody = true
        request.postBodyFilePath = file.path
        let before = request.postLength
        let grown = first + Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try grown.write(to: file)
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertGreaterThan(request.postLength, before)
        XCTAssertEqual(server.recordedRequests.last?.header("Content-Length"), "\(request.postLength)")
        let echo = try JSONDecoder().decode(GunzipEcho.self, from: try XCTUnwrap(request.responseData()))
        XCTAssertEqual(echo.decoded, grown)
    }

    /// A file that changes while it is being sent no longer gzips to the length announced: the
    /// reader fails rather than send a body under a length that is not its own.
    func testThatAGzippedBodyWhoseFileChangesWhileSentFailsInsteadOfMisstatingItsLength() throws {
        let file = directory.appendingPathComponent("changing.bin")
        try Data(repeating: 0x62, count: 200_000).write(to: file)
        let segments = [BodySegment.file(path: file.path, length: 200_000)]
        let measured = try CompressedBody.make(from: segments, url: Fixture.url(.echo))
        try Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }).write(to: file)
        XCTAssertFalse(measured.matches(segments), "the change is seen before an attempt")
        let reader = GzipBodyReader(
            source: SegmentBodyReader(segments: segments, url: nil), expectedLength: measured.length)
        defer { reader.close() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var failure: HTTPRequestError?
        reading: while true {
            switch buffer.withUnsafeMutableBytes({ reader.read(into: $0) }) {
            case .bytes(0): break reading
            case .bytes: continue
            case .fail(let error):
                failure = error
                break reading
            case .pause: XCTFail("a file never pauses")
            }
        }
        XCTAssertEqual(failure?.type, .internalErrorWhileBuildingRequest)
        XCTAssertTrue(
            failure?.message.contains("changed while it was being sent") ?? false, "\(String(describing: failure))")
    }
}
