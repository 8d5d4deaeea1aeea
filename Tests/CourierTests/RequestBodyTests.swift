import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// Bodies from disk and from producers, checked byte for byte on the server.
final class RequestBodyTests: ServerTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try makeTemporaryDirectory("courier-bodies")
    }

    private static let sample = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })

    func testThatAFileBodyStreamsWithItsLengthKnownAhead() throws {
        let path = try directory.writeFile("body.bin", Self.sample)
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "PUT"
        request.postBodyFilePath = path
        XCTAssertEqual(request.postLength, Int64(Self.sample.count))
        let progress = RecordingProgress()
        request.uploadProgressDelegate = progress
        request.startSynchronous()
        XCTAssertNil(request.error)
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.bodyData, Self.sample)
        XCTAssertEqual(echo.header("Content-Length"), "\(Self.sample.count)")
        XCTAssertEqual(progress.current.sent.reduce(0, +), Int64(Self.sample.count))
        XCTAssertEqual(progress.current.fractions.last, 1.0)
    }

    func testThatPiecesOnDiskAndInMemoryGoInOrder() throws {
        let first = try directory.writeFile("first.txt", Data("FILE ONE|".utf8))
        let second = try directory.writeFile("second.txt", Data("FILE TWO".utf8))
        let request = HTTPRequest(url: server.url(.echo))
        request.shouldStreamPostDataFromDisk = true
        request.appendPostData(Data("head|".utf8))
        request.appendPostData(fromFile: first)
        request.appendPostData(Data("middle|".utf8))
        request.appendPostData(fromFile: second)
        XCTAssertEqual(request.postLength, 29)
        request.startSynchronous()
        XCTAssertEqual(request.requestMethod, "POST", "a body makes an unset method POST")
        XCTAssertEqual(try Echo(from: request).bodyData, Data("head|FILE ONE|middle|FILE TWO".utf8))

        let inMemory = HTTPRequest(url: server.url(.echo))
        inMemory.appendPostData(fromFile: first)
        XCTAssertEqual(inMemory.postBody, Data("FILE ONE|".utf8), "without streaming the file is read now")
    }

    func testThatAppendingWhileStreamingFromDiskWritesThePostBodyFile() throws {
        let piece = try directory.writeFile("piece.bin", Self.sample)
        let expected = Data("head|".utf8) + Self.sample + Data("|tail".utf8)
        for startsWith in [nil, Data("stale bytes from an earlier run".utf8)] {
            let path = directory.appendingPathComponent("appended.bin").path
            try? FileManager.default.removeItem(atPath: path)
            if let startsWith { try startsWith.write(to: URL(fileURLWithPath: path)) }
            let request = HTTPRequest(url: server.url(.echo))
            request.shouldStreamPostDataFromDisk = true
            request.postBodyFilePath = path
            request.appendPostData(Data("head|".utf8))
            request.appendPostData(fromFile: piece)
            request.appendPostData(Data("|tail".utf8))
            // ASI: the request's first append starts the file afresh, and the file is the body.
            XCTAssertEqual(FileManager.default.contents(atPath: path), expected)
            XCTAssertEqual(request.postLength, Int64(expected.count))
            request.startSynchronous()
            XCTAssertNil(request.error)
            let echo = try Echo(from: request)
            XCTAssertEqual(echo.method, "POST")
            XCTAssertEqual(echo.bodyData, expected, "file existed: \(startsWith != nil)")
        }

        let gzipped = HTTPRequest(url: server.url(.gunzipEcho))
        gzipped.shouldStreamPostDataFromDisk = true
        gzipped.shouldCompressRequestBody = true
        gzipped.postBodyFilePath = directory.appendingPathComponent("gzipped.bin").path
        gzipped.appendPostData(Self.sample)
        gzipped.startSynchronous()
        XCTAssertNil(gzipped.error)
        let echo = try JSONDecoder().decode(GunzipEcho.self, from: try XCTUnwrap(gzipped.responseData()))
        XCTAssertEqual(echo.contentEncoding, "gzip")
        XCTAssertEqual(echo.decodedMD5, TestServer.md5Hex(of: Self.sample))
        XCTAssertLessThan(echo.receivedLength, Self.sample.count, "compressed on the wire")
    }

    func testThatABodyFileThatCannotBeWrittenFailsTheRequestNamingIt() {
        let unwritable = directory.appendingPathComponent("missing-folder/body.bin").path
        let request = HTTPRequest(url: server.url(.echo))
        request.shouldStreamPostDataFromDisk = true
        request.postBodyFilePath = unwritable
        request.appendPostData(Data("lost".utf8))
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .internalErrorWhileBuildingRequest)
        XCTAssertEqual(
            request.error?.message,
            "The body file \(unwritable) cannot be opened for writing: No such file or directory")

        let unreadable = HTTPRequest(url: server.url(.echo))
        unreadable.shouldStreamPostDataFromDisk = true
        unreadable.postBodyFilePath = directory.appendingPathComponent("copied.bin").path
        unreadable.appendPostData(fromFile: "/no/such/source.bin")
        unreadable.startSynchronous()
        XCTAssertEqual(unreadable.error?.type, .internalErrorWhileBuildingRequest)
        XCTAssertTrue(
            unreadable.error?.message.contains("/no/such/source.bin") ?? false,
            "\(String(describing: unreadable.error))")
        XCTAssertEqual(server.connectionsAccepted, 0, "nothing was sent")
    }

    func testThatAFileBodyIsSentWholeAgainAfterA307() throws {
        let path = try directory.writeFile("again.bin", Self.sample)
        let request = HTTPRequest(url: server.url(.redirect(307, to: "/echo")))
        request.requestMethod = "PUT"
        request.postBodyFilePath = path
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(server.recordedRequests.count, 2)
        XCTAssertEqual(server.recordedRequests.map(\.body), [Self.sample, Self.sample], "whole at both hops")
    }

    func testThatAnUnreadableBodyFileFailsBeforeAnythingIsSent() {
        for configure in [
            { (request: HTTPRequest) in request.postBodyFilePath = "/no/such/body.bin" },
            { (request: HTTPRequest) in
                request.shouldStreamPostDataFromDisk = true
                request.appendPostData(fromFile: "/no/such/piece.bin")
            },
            { (request: HTTPRequest) in request.appendPostData(fromFile: "/no/such/memory.bin") },
            { (request: HTTPRequest) in request.postBodyFilePath = "/tmp" },
        ] {
            let request = HTTPRequest(url: server.url(.echo))
            configure(request)
            request.startSynchronous()
            XCTAssertEqual(request.error?.type, .internalErrorWhileBuildingRequest)
            XCTAssertTrue(
                request.error?.message.contains("/no/such") ?? false || request.error?.message.contains("/tmp") ?? false
            )
        }
        XCTAssertEqual(server.connectionsAccepted, 0, "nothing was sent")
    }

    func testThatAProducerBodyOfUnknownLengthGoesChunkedAndWhole() throws {
        let made = EventLog()
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "PUT"
        request.setPostBodyStream(length: nil) {
            made.add("made")
            return InputStream(data: Self.sample)
        }
        request.startSynchronous()
        XCTAssertNil(request.error)
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.header("Transfer-Encoding"), "chunked")
        XCTAssertNil(echo.header("Content-Length"))
        XCTAssertEqual(echo.bodyData, Self.sample)
        XCTAssertEqual(made.all, ["made"])
    }

    func testThatAProducerBodyIsMadeAgainForA307() throws {
        let made = EventLog()
        let request = HTTPRequest(url: server.url(.redirect(307, to: "/echo")))
        request.setPostBodyStream(length: Int64(Self.sample.count)) {
            made.add("made")
            return InputStream(data: Self.sample)
        }
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(server.recordedRequests.map(\.body), [Self.sample, Self.sample])
        XCTAssertEqual(try Echo(from: request).header("Content-Length"), "\(Self.sample.count)")
        XCTAssertGreaterThanOrEqual(made.all.count, 2, "one stream per attempt")
    }

    func testThatABodyWrittenThroughBoundStreamsArrivesWhole() throws {
        let streams = BoundPair(makeBoundStreams(bufferSize: 16 * 1024))
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "PUT"
        request.setPostBodyStream(length: nil) { streams.input }
        let writer = Thread {
            let output = streams.output
            Self.sample.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let count = output.write(
                        bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset,
                        maxLength: min(10_000, bytes.count - offset))
                    guard count > 0 else { return }
                    offset += count
                }
            }
            output.close()
        }
        writer.start()
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(try Echo(from: request).bodyData, Self.sample)
    }

    func testThatABoundStreamThatMustBeSentAgainFailsClearly() {
        let streams = BoundPair(makeBoundStreams(bufferSize: 4096))
        XCTAssertEqual(streams.output.write("once", maxLength: 4), 4)
        streams.output.close()
        let request = HTTPRequest(url: server.url(.redirect(307, to: "/echo")))
        request.setPostBodyStream(length: 4) { streams.input }
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .internalErrorWhileBuildingRequest)
        XCTAssertTrue(
            request.error?.message.contains("return a new stream each time") ?? false,
            "\(String(describing: request.error))")
    }

    func testThatABodyFromAFIFOArrivesWhole() throws {
        let fifo = directory.appendingPathComponent("body.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let writer = Thread {
            let handle = FileHandle(forWritingAtPath: fifo)!
            handle.write(Self.sample)
            try? handle.close()
        }
        writer.start()
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = "PUT"
        request.setPostBodyStream(length: nil) { InputStream(fileAtPath: fifo)! }
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(try Echo(from: request).bodyData, Self.sample)
    }
}

/// A bound pair handed to a `@Sendable` closure and a writer thread.
final class BoundPair: @unchecked Sendable {
    // @unchecked Sendable: the input is read only by Courier's body reader, the output written
    // only by the test's writer thread.
    let input: InputStream
    let output: OutputStream
    init(_ pair: (input: InputStream, output: OutputStream)) {
        input = pair.input
        output = pair.output
    }
}

extension RequestBodyTests {
    func testThatAServerRefusingTheBodyEarlyIsHonoured() throws {
        // libcurl asks with Expect: 100-continue for bodies over 1 MiB; the server says no. (A
        // chunked body goes without Expect: ExpectHeaderTests.)
        let server = try TestServer()
        defer { server.stop() }
        let sent = Locked(0)
        let request = HTTPRequest(url: server.url(.refuseBody(413)))
        request.requestMethod = "PUT"
        request.setPostBodyStream(length: 8 << 20) { InputStream(data: Data(count: 8 << 20)) }
        request.setBytesSentBlock { _, bytes, _ in sent.withLock { $0 += Int(bytes) } }
        let started = Date()
        request.startSynchronous()
        XCTAssertNil(request.error, "a refusal is a finished request")
        XCTAssertEqual(request.responseStatusCode, 413)
        XCTAssertEqual(request.responseString(), "body refused before it was sent")
        XCTAssertLessThan(request.totalBytesSent, 8 << 20, "the 8 MiB body was not sent")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "no waiting for a 100 that never comes")
        XCTAssertEqual(server.requestsReceived, 1)
        XCTAssertTrue(server.recordedRequests.isEmpty, "the server never read a body")
    }
}
