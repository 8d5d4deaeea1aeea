import CZlib
import CourierTestSupport
import Foundation
import XCTest

@testable import CourierTestServer

/// The compression routes, checked with the raw-socket client and decoded with zlib or
/// the `gzip` tool directly (never with the server's own decoder), and the server's MD5.
final class CompressionRouteTests: ServerTestCase {
    // MARK: Compressed responses

    func testGzippedRouteServesCompressedDeterministicBytesWithLength() throws {
        let connection = try RawHTTPClient(port: server.port)
        for count in [0, 1, 1000, 1_000_003] {
            let response = try connection.request("GET", Route.gzipped(count).path)
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.header("Content-Encoding"), "gzip")
            XCTAssertEqual(response.header("Content-Length"), "\(response.body.count)")
            XCTAssertEqual(Array(response.body.prefix(3)), [0x1F, 0x8B, 0x08])
            XCTAssertEqual(try Self.gunzipWithTool(response.body), TestServer.deterministicBytes(count: count))
        }
        // Far smaller than the bytes it stands for: the pattern compresses well.
        let large = try connection.request("GET", Route.gzipped(10_000_000).path)
        XCTAssertLessThan(large.body.count, 200_000)
        XCTAssertEqual(try Self.zlibInflate(large.body), TestServer.deterministicBytes(count: 10_000_000))
        let head = try connection.request("HEAD", Route.gzipped(1000).path)
        let get = try connection.request("GET", Route.gzipped(1000).path)
        XCTAssertEqual(head.header("Content-Length"), "\(get.body.count)", "HEAD has the GET's length")
        XCTAssertTrue(head.body.isEmpty)
    }

    func testDeflatedRouteServesZlibWrappedDeflate() throws {
        let connection = try RawHTTPClient(port: server.port)
        for count in [0, 5, 300_000] {
            let response = try connection.request("GET", Route.deflated(count).path)
            XCTAssertEqual(response.header("Content-Encoding"), "deflate")
            XCTAssertEqual(response.header("Content-Length"), "\(response.body.count)")
            XCTAssertEqual(response.body.first, 0x78, "a zlib header with a 32 KiB window")
            XCTAssertEqual(
                try Self.zlibInflate(response.body, windowBits: 15), TestServer.deterministicBytes(count: count))
        }
    }

    func testGzippedChunkedRouteStreamsTheSameBodyInChunks() throws {
        let connection = try RawHTTPClient(port: server.port)
        let count = 3_000_000
        let chunked = try connection.request("GET", Route.gzippedChunked(count).path)
        XCTAssertEqual(chunked.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(chunked.header("Content-Encoding"), "gzip")
        XCTAssertNil(chunked.header("Content-Length"))
        XCTAssertFalse(chunked.chunkSizes.isEmpty)
        XCTAssertEqual(try Self.gunzipWithTool(chunked.body), TestServer.deterministicBytes(count: count))
        XCTAssertEqual(chunked.body, try connection.request("GET", Route.gzipped(count).path).body, "byte for byte")

        // HTTP/1.0 has no chunked coding: the close delimits the body instead.
        let old = try RawHTTPClient(port: server.port).request(
            "GET", Route.gzippedChunked(1000).path, version: "HTTP/1.0")
        XCTAssertNil(old.header("Transfer-Encoding"))
        XCTAssertEqual(try Self.gunzipWithTool(old.body), TestServer.deterministicBytes(count: 1000))
    }

    func testCorruptGzipRouteHasAValidHeaderAndUndecodableData() throws {
        let response = try RawHTTPClient(port: server.port).request("GET", Route.corruptGzip.path)
        XCTAssertEqual(response.header("Content-Encoding"), "gzip")
        XCTAssertEqual(response.header("Content-Length"), "\(response.body.count)")
        XCTAssertEqual(response.body, TestServer.corruptGzipBody)
        XCTAssertEqual(Array(response.body.prefix(3)), [0x1F, 0x8B, 0x08])
        XCTAssertThrowsError(try Self.zlibInflate(response.body)) { error in
            XCTAssertEqual("\(error)", "invalid stored block lengths")
        }
        XCTAssertThrowsError(try Self.gunzipWithTool(response.body))
    }

    func testGzipThenCorruptRouteSendsAWholeMemberThenUndecodableDataLater() throws {
        let connection = try RawHTTPClient(port: server.port)
        let started = Date()
        let response = try connection.request("GET", Route.gzipThenCorrupt(afterMilliseconds: 300).path)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.3, "the bad part waits")
        XCTAssertEqual(response.header("Content-Encoding"), "gzip")
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(response.chunkSizes.count, 2, "the good member, then the bad one")
        let goodSize = try XCTUnwrap(response.chunkSizes.first)
        let (inflated, allZero) = try Self.zlibCountInflated(Data(response.body.prefix(goodSize)))
        XCTAssertEqual(inflated, 1 << 20)
        XCTAssertTrue(allZero)
        XCTAssertLessThan(goodSize, 4096, "small enough to arrive in one read")
        XCTAssertEqual(Data(response.body.dropFirst(goodSize)), TestServer.corruptGzipBody)
        XCTAssertThrowsError(try Self.zlibInflate(response.body))
        // The connection stays in sync.
        XCTAssertEqual(try connection.request("GET", Route.status(200).path).text, "status 200")
    }

    func testGzipBombInflatesToOneGibibytePerUnitFromASmallBody() throws {
        let connection = try RawHTTPClient(port: server.port, timeout: 30)
        let response = try connection.request("GET", Route.gzipBomb(gibibytes: 1).path)
        XCTAssertEqual(response.header("Content-Encoding"), "gzip")
        XCTAssertEqual(response.header("Transfer-Encoding"), "chunked")
        XCTAssertEqual(response.chunkSizes.count, 64, "one chunk per member")
        XCTAssertEqual(Set(response.chunkSizes).count, 1, "the same member every time")
        XCTAssertLessThan(response.body.count, 1_100_000)
        let (inflated, allZero) = try Self.zlibCountInflated(response.body)
        XCTAssertEqual(inflated, 1 << 30)
        XCTAssertTrue(allZero)

        let empty = try connection.request("GET", Route.gzipBomb(gibibytes: 0).path)
        XCTAssertTrue(empty.body.isEmpty)
        // HEAD gets the head only, however large the body would be, and the connection stays in sync.
        let head = try connection.request("HEAD", Route.gzipBomb(gibibytes: 1 << 20).path)
        XCTAssertEqual(head.header("Content-Encoding"), "gzip")
        XCTAssertEqual(try connection.request("GET", Route.status(200).path).text, "status 200")
    }

    func testGzipBombStopsWhenTheClientGoesAway() throws {
        // A petabyte's worth: it must end because the client leaves, not because it finished.
        let connection = try RawHTTPClient(port: server.port)
        try connection.send("GET \(Route.gzipBomb(gibibytes: 1 << 20).path) HTTP/1.1\r\nHost: x\r\n\r\n")
        _ = try connection.read(count: 200_000)
        connection.resetSocket()
        Thread.sleep(forTimeInterval: 0.2)
        let cpuBefore = Self.processCPUSeconds()
        Thread.sleep(forTimeInterval: 0.5)
        let cpuUsed = Self.processCPUSeconds() - cpuBefore
        XCTAssertLessThan(cpuUsed, 0.25, "the server still works on the bomb: \(cpuUsed) s of CPU in 0.5 s")
        // The server is fine and answers new connections.
        XCTAssertEqual(try RawHTTPClient(port: server.port).request("GET", Route.status(200).path).status, 200)
    }

    // MARK: gunzip-echo

    func testGunzipEchoInflatesAGzipBody() throws {
        let original = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) })
        let compressed = try Self.gzipWithTool(original)
        let reply = try echo(compressed, headers: ["Content-Encoding: gzip"])
        XCTAssertEqual(reply.contentEncoding, "gzip")
        XCTAssertEqual(reply.receivedLength, compressed.count)
        XCTAssertEqual(reply.decodedLength, original.count)
        XCTAssertEqual(reply.decodedMD5, TestServer.md5Hex(of: original))
        XCTAssertEqual(Data(base64Encoded: reply.decodedBase64), original)

        // Any method; concatenated members; the x-gzip alias.
        let twoMembers = try Self.gzipWithTool(Data("one ".utf8)) + Self.gzipWithTool(Data("two".utf8))
        let put = try echo(twoMembers, method: "PUT", headers: ["Content-Encoding: x-gzip"])
        XCTAssertEqual(Data(base64Encoded: put.decodedBase64), Data("one two".utf8))
    }

    func testGunzipEchoReportsLargeBodiesByDigestOnly() throws {
        let original = TestServer.deterministicBytes(count: 24 << 20) + Data(repeating: 1, count: 1000)
        let compressed = try Self.gzipWithTool(original)
        let reply = try echo(compressed, headers: ["Content-Encoding: gzip"])
        XCTAssertEqual(reply.decodedLength, original.count)
        XCTAssertEqual(reply.decodedMD5, try Self.md5WithTool(original))
        XCTAssertEqual(reply.decodedBase64, "")
    }

    func testGunzipEchoDescribesAnUnencodedBodyAsIs() throws {
        let body = Data("plain body".utf8)
        let reply = try echo(body)
        XCTAssertEqual(reply.contentEncoding, "")
        XCTAssertEqual(reply.receivedLength, body.count)
        XCTAssertEqual(reply.decodedLength, body.count)
        XCTAssertEqual(reply.decodedMD5, try Self.md5WithTool(body))
        XCTAssertEqual(Data(base64Encoded: reply.decodedBase64), body)
        XCTAssertEqual(try echo(Data()).decodedMD5, "d41d8cd98f00b204e9800998ecf8427e")
        // A zlib-wrapped "deflate" body is inflated too.
        let deflated = try echo(Self.zlibCompress(body), headers: ["Content-Encoding: deflate"])
        XCTAssertEqual(Data(base64Encoded: deflated.decodedBase64), body)
    }

    func testGunzipEchoRefusesBadBodies() throws {
        let connection = try RawHTTPClient(port: server.port)
        let valid = try Self.gzipWithTool(Data(repeating: 9, count: 10_000))
        let cases: [(Data, String, Int)] = [
            (TestServer.corruptGzipBody, "gzip", 400),
            (valid.prefix(valid.count / 2), "gzip", 400),
            (valid, "br", 415),
        ]
        for (body, encoding, status) in cases {
            let response = try connection.request(
                "POST", Route.gunzipEcho.path, headers: ["Content-Encoding: \(encoding)"], body: body)
            XCTAssertEqual(response.status, status, response.text)
            XCTAssertFalse(response.text.isEmpty)
        }
    }

    // MARK: Parsing and MD5

    func testCompressionRoutePathsRoundTrip() {
        let routes: [Route] = [
            .gzipped(0), .gzipped(123), .deflated(9), .gzippedChunked(77), .corruptGzip,
            .gzipBomb(gibibytes: 10), .gzipThenCorrupt(afterMilliseconds: 250), .gunzipEcho,
        ]
        for route in routes {
            XCTAssertEqual(Route(path: route.path), route, route.path)
        }
        XCTAssertEqual(Route.gzipBomb(gibibytes: 10).path, "/gzip/bomb/10")
        XCTAssertEqual(Route.gunzipEcho.path, "/gunzip-echo")
        XCTAssertEqual(Route.gzipThenCorrupt(afterMilliseconds: 250).path, "/gzip/then-corrupt/250")
        for path in [
            "/gzip", "/gzip/bytes/x", "/gzip/other/1", "/deflate/chunked/1", "/gunzip-echo/more", "/gzip/bomb/-1",
            "/gzip/then-corrupt", "/gzip/then-corrupt/x",
        ] {
            XCTAssertNil(Route(path: path), path)
        }
    }

    func testMD5KnownVectors() {
        // RFC 1321 appendix A.5.
        let vectors = [
            "": "d41d8cd98f00b204e9800998ecf8427e",
            "a": "0cc175b9c0f1b6a831c399e269772661",
            "abc": "900150983cd24fb0d6963f7d28e17f72",
            "message digest": "f96b697d7cb7938d525a2f31aaf161d0",
            "abcdefghijklmnopqrstuvwxyz": "c3fcd3d76192e4007dfb496cca67e13b",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789": "d174ab98d277d9f5a5611c2c9f419d9f",
            String(repeating: "1234567890", count: 8): "57edf4a22be3c955ac49da2e2107b67a",
        ]
        for (text, digest) in vectors {
            XCTAssertEqual(TestServer.md5Hex(of: Data(text.utf8)), digest, text)
        }
    }

    func testMD5MatchesTheToolAtEveryPaddingBoundaryAndSplit() throws {
        let data = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        for length in [55, 56, 57, 63, 64, 65, 119, 120, 128, 1000] {
            XCTAssertEqual(TestServer.md5Hex(of: data.prefix(length)), try Self.md5WithTool(data.prefix(length)))
        }
        // Fed in uneven pieces, the digest is the same as in one go.
        var digest = MD5()
        var offset = 0
        for size in [1, 62, 3, 64, 200, 670] {
            data[offset..<(offset + size)].withUnsafeBytes { digest.update($0) }
            offset += size
        }
        XCTAssertEqual(offset, data.count)
        XCTAssertEqual(digest.finalizeHex(), TestServer.md5Hex(of: data))
        XCTAssertEqual(digest.finalizeHex(), digest.finalizeHex(), "finalizing leaves the value unchanged")
    }

    // MARK: Helpers

    /// What `/gunzip-echo` answers.
    private struct EchoReply: Decodable {
        let contentEncoding: String
        let receivedLength: Int
        let decodedLength: Int
        let decodedMD5: String
        let decodedBase64: String
    }

    private func echo(_ body: Data, method: String = "POST", headers: [String] = []) throws -> EchoReply {
        let response = try RawHTTPClient(port: server.port, timeout: 30).request(
            method, Route.gunzipEcho.path, headers: headers, body: body)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        return try JSONDecoder().decode(EchoReply.self, from: response.body)
    }

    private struct ZlibFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Inflates with zlib directly; windowBits 15 + 32 accepts gzip (multi-member) or zlib.
    static func zlibInflate(_ data: Data, windowBits: Int32 = 15 + 32) throws -> Data {
        var result = Data()
        try zlibInflate(data, windowBits: windowBits) { result.append(contentsOf: $0) }
        return result
    }

    /// Counts the inflated bytes and whether all are zero, without keeping them.
    static func zlibCountInflated(_ data: Data) throws -> (count: Int, allZero: Bool) {
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var count = 0
        var allZero = true
        try zlibInflate(data, windowBits: 15 + 32) { chunk in
            count += chunk.count
            allZero = allZero && zeros.withUnsafeBytes { memcmp($0.baseAddress!, chunk.baseAddress!, chunk.count) == 0 }
        }
        return (count, allZero)
    }

    private static func zlibInflate(
        _ data: Data, windowBits: Int32, into output: (UnsafeRawBufferPointer) -> Void
    ) throws {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        guard czlib_inflateInit2(stream, windowBits) == Z_OK else { throw ZlibFailure(description: "init") }
        defer { inflateEnd(stream) }
        var input = [UInt8](data)
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        try input.withUnsafeMutableBufferPointer { inputBuffer in
            try scratch.withUnsafeMutableBytes { scratchBuffer in
                stream.pointee.next_in = inputBuffer.baseAddress
                stream.pointee.avail_in = uInt(inputBuffer.count)
                while true {
                    stream.pointee.next_out = scratchBuffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_out = uInt(scratchBuffer.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    let produced = scratchBuffer.count - Int(stream.pointee.avail_out)
                    if produced > 0 { output(UnsafeRawBufferPointer(rebasing: scratchBuffer[..<produced])) }
                    if status == Z_STREAM_END {
                        if stream.pointee.avail_in == 0 { return }
                        inflateReset(stream)  // the next gzip member
                    } else if status != Z_OK {
                        throw ZlibFailure(description: stream.pointee.msg.map { String(cString: $0) } ?? "\(status)")
                    } else if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 {
                        throw ZlibFailure(description: "truncated")
                    }
                }
            }
        }
    }

    static func zlibCompress(_ data: Data) -> Data {
        var length = compressBound(uLong(data.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = data.withUnsafeBytes {
            compress(&output, &length, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(data.count))
        }
        precondition(status == Z_OK)
        return Data(output.prefix(Int(length)))
    }

    static func gzipWithTool(_ data: Data) throws -> Data { try run("/bin/gzip", ["-c"], input: data) }
    static func gunzipWithTool(_ data: Data) throws -> Data { try run("/bin/gzip", ["-d", "-c"], input: data) }
    static func md5WithTool(_ data: Data) throws -> String {
        String(decoding: try run("/usr/bin/md5sum", [], input: data).prefix(32), as: UTF8.self)
    }

    /// Runs a tool on `input` (from a file) and returns its output.
    private static func run(_ tool: String, _ arguments: [String], input: Data) throws -> Data {
        let inputURL = FileManager.default.temporaryDirectory.appendingPathComponent("courier-zlib-\(UUID())")
        try input.write(to: inputURL)
        defer { try? FileManager.default.removeItem(at: inputURL) }
        let run = try Tool.run(URL(fileURLWithPath: tool), arguments + [inputURL.path])
        guard run.exited, run.status == 0 else {
            throw ZlibFailure(description: "\(tool) \(arguments) exited with \(run.status)")
        }
        return run.output
    }

    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        return user + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
