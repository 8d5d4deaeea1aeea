import CZlib
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// The zlib building blocks: ``Inflater`` against every shape servers send (and the gzip
/// command line tool), its limit against a decompression bomb, and ``Deflater``.
final class CompressionTests: XCTestCase {
    // MARK: Round trips

    func testGzipRoundTripsRandomDataWholeAndInPieces() throws {
        for count in [0, 1, 100, 65_536, 65_537, 1_000_003] {
            let original = Self.randomData(count: count)
            let compressed = try Deflater.gzip(original)
            XCTAssertEqual(Array(compressed.prefix(2)), [0x1F, 0x8B], "gzip magic for \(count) bytes")
            XCTAssertEqual(try Inflater.inflate(compressed, limit: 1 << 30), original, "\(count) bytes")
            XCTAssertEqual(try Self.inflateInPieces(compressed, pieceSizes: [1, 2, 3, 1000, 7]), original)
        }
    }

    func testZlibWrappedDeflateInflates() throws {
        let original = Self.randomData(count: 300_000) + Data(repeating: 7, count: 300_000)
        let compressed = Self.zlibCompress(original, windowBits: 15)
        XCTAssertEqual(compressed.first.map { $0 & 0x0F }, 8, "a zlib header")
        XCTAssertEqual(try Inflater.inflate(compressed, limit: 1 << 30), original)
        XCTAssertEqual(try Self.inflateInPieces(compressed, pieceSizes: [1, 1, 5000]), original)
        // Smaller windows have other header bytes, which detection must still recognise.
        let smallWindow = Self.zlibCompress(original, windowBits: 9)
        XCTAssertEqual(try Inflater.inflate(smallWindow, limit: 1 << 30), original)
    }

    func testRawDeflateInflates() throws {
        for original in [Data("hello, raw deflate".utf8), Self.randomData(count: 200_000), Data(count: 1_000_000)] {
            let compressed = Self.zlibCompress(original, windowBits: -15)
            XCTAssertEqual(try Inflater.inflate(compressed, limit: 1 << 30), original)
            XCTAssertEqual(try Self.inflateInPieces(compressed, pieceSizes: [1, 1, 3]), original)
        }
    }

    func testConcatenatedGzipMembersInflateToTheirConcatenation() throws {
        let parts = [Data("first member\n".utf8), Data(), Self.randomData(count: 100_000), Data("last".utf8)]
        let compressed = try parts.map { try Deflater.gzip($0) }.reduce(Data(), +)
        let expected = parts.reduce(Data(), +)
        XCTAssertEqual(try Inflater.inflate(compressed, limit: 1 << 30), expected)
        // Split so that member boundaries fall inside pieces and between them.
        XCTAssertEqual(try Self.inflateInPieces(compressed, pieceSizes: [1, 17, 2, 4096]), expected)
    }

    // MARK: Failures

    func testCorruptInputThrowsCorrupt() throws {
        let valid = try Deflater.gzip(Self.randomData(count: 10_000))
        var badCRC = valid
        badCRC[badCRC.count - 5] ^= 0xFF
        let gzipHeader = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03])
        let cases: [(String, Data)] = [
            ("a gzip header, then a block of the reserved type", gzipHeader + Data([0xFF, 0xFF, 0xFF, 0xFF])),
            ("plain text, read as raw deflate", Data("hello, this is not compressed at all".utf8)),
            ("a damaged CRC", badCRC),
            ("a zlib stream with trailing data", Self.zlibCompress(Data("x".utf8), windowBits: 15) + Data([1, 2])),
            ("a gzip member followed by garbage", valid + Data("garbage!".utf8)),
            ("a gzip header with an unknown method", Data([0x1F, 0x8B, 0x07, 0, 0, 0, 0, 0, 0, 0x03, 0, 0])),
        ]
        for (name, data) in cases {
            XCTAssertThrowsError(try Inflater.inflate(data, limit: 1 << 30), name) { error in
                guard case .corrupt(let reason) = error as? InflateError else {
                    return XCTFail("\(name): expected .corrupt, got \(error)")
                }
                XCTAssertFalse(reason.isEmpty, name)
                XCTAssertTrue("\(error)".hasPrefix("The compressed data is corrupt: "), name)
            }
        }
    }

    /// They run inside libcurl's callbacks: misuse fails, it never traps.
    func testMisuseThrowsInsteadOfTrapping() throws {
        let deflater = try XCTUnwrap(Deflater())
        try deflater.finish { _ in }
        XCTAssertThrowsError(try deflater.compress(UnsafeRawBufferPointer(start: nil, count: 0)) { _ in }) {
            XCTAssertTrue("\($0)".contains("after it finished"), "\($0)")
        }
        let inflater = Inflater(limit: 1 << 20)
        let member = try Deflater.gzip(Data("once".utf8))
        try member.withUnsafeBytes { try inflater.inflate($0) { _ in } }
        try inflater.finish()
        XCTAssertThrowsError(try member.withUnsafeBytes { try inflater.inflate($0) { _ in } }) {
            XCTAssertEqual($0 as? InflateError, .corrupt("more data came after the end of the compressed stream"))
        }
        let bounded = Inflater(limit: -5)
        XCTAssertThrowsError(try member.withUnsafeBytes { try bounded.inflate($0) { _ in } }) {
            XCTAssertEqual($0 as? InflateError, .exceedsLimit(0), "a negative limit counts as 0")
        }
    }

    func testFailureIsStickyAndErrorsDescribeThemselves() throws {
        let inflater = Inflater(limit: 1 << 20)
        let garbage = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xFF, 0xFF])
        XCTAssertThrowsError(try garbage.withUnsafeBytes { try inflater.inflate($0) { _ in } })
        let more = try Deflater.gzip(Data("fine".utf8))
        XCTAssertThrowsError(try more.withUnsafeBytes { try inflater.inflate($0) { _ in } }) { error in
            XCTAssertEqual(error as? InflateError, .corrupt("invalid block type"))
        }
        XCTAssertThrowsError(try inflater.finish())
        XCTAssertEqual(
            InflateError.exceedsLimit(1024).localizedDescription,
            "The data inflates to more than the limit of 1024 bytes")
        XCTAssertEqual(
            "\(InflateError.truncated)", "The compressed data ended before the end of the compressed stream")
    }

    func testTruncatedInputThrowsTruncatedAtFinish() throws {
        let compressed = try Deflater.gzip(Self.randomData(count: 50_000))
        for cut in [1, 2, 10, compressed.count / 2, compressed.count - 1] {
            let inflater = Inflater(limit: 1 << 30)
            try compressed.prefix(cut).withUnsafeBytes { try inflater.inflate($0) { _ in } }
            XCTAssertThrowsError(try inflater.finish(), "cut at \(cut)") { error in
                XCTAssertEqual(error as? InflateError, .truncated, "cut at \(cut)")
            }
        }
        // A body of no bytes at all is an empty body, not a truncated one.
        XCTAssertEqual(try Inflater.inflate(Data(), limit: 0), Data())
    }

    func testLimitAllowsExactlyTheLimitAndNeverHandsOutMore() throws {
        let original = Self.randomData(count: 200_000)
        let compressed = try Deflater.gzip(original)
        XCTAssertEqual(try Inflater.inflate(compressed, limit: 200_000), original)

        let inflater = Inflater(limit: 199_999)
        var handedOut = 0
        XCTAssertThrowsError(try compressed.withUnsafeBytes { try inflater.inflate($0) { handedOut += $0.count } }) {
            XCTAssertEqual($0 as? InflateError, .exceedsLimit(199_999))
        }
        XCTAssertLessThanOrEqual(handedOut, 199_999)
        XCTAssertEqual(Int64(handedOut), inflater.inflatedCount)
    }

    func testOutputErrorsPassThroughUnchanged() throws {
        struct Full: Error {}
        let inflater = Inflater(limit: 1 << 30)
        let compressed = try Deflater.gzip(Data(count: 1_000_000))
        XCTAssertThrowsError(try compressed.withUnsafeBytes { try inflater.inflate($0) { _ in throw Full() } }) {
            XCTAssertTrue($0 is Full)
        }
    }

    func testOutputComesInPiecesOfAtMostTheScratchSize() throws {
        let original = Data(count: 3_000_000) + Self.randomData(count: 500_000)
        let compressed = try Deflater.gzip(original)
        let inflater = Inflater(limit: 1 << 30)
        var sizes: [Int] = []
        var inflated = Data()
        try compressed.withUnsafeBytes { bytes in
            try inflater.inflate(bytes) { chunk in
                sizes.append(chunk.count)
                inflated.append(contentsOf: chunk)
            }
        }
        try inflater.finish()
        XCTAssertEqual(inflated, original)
        XCTAssertEqual(sizes.max(), Inflater.chunkSize, "full pieces are exactly the scratch size")
        XCTAssertFalse(sizes.contains(0), "no empty pieces")

        let deflater = try XCTUnwrap(Deflater())
        var deflatedSizes: [Int] = []
        try original.withUnsafeBytes { try deflater.compress($0) { deflatedSizes.append($0.count) } }
        try deflater.finish { deflatedSizes.append($0.count) }
        XCTAssertLessThanOrEqual(deflatedSizes.max() ?? 0, Deflater.chunkSize)
    }

    /// 10 GiB of zeros as 640 gzip members of 16 MiB each (about 10 MB compressed), fed
    /// member by member: the 1 GiB limit must stop it at the 65th member, quickly, and
    /// without the process growing, because output is handed out and dropped piece by piece.
    func testTenGibibyteBombStopsAtTheLimitWithFlatMemory() throws {
        let member = try Self.gzipOfZeros(count: 16 << 20)
        // Other tests in this process may already have set a higher peak, which would
        // hide growth here: writing 5 to clear_refs resets the peak to the current size.
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        let peakBefore = ChildProcess.peakResidentBytes
        let start = Date()

        let inflater = Inflater(limit: 1 << 30)
        var failure: Error?
        var membersFed = 0
        member.withUnsafeBytes { bytes in
            for _ in 0..<640 {
                do {
                    try inflater.inflate(bytes) { _ in }
                    membersFed += 1
                } catch {
                    failure = error
                    break
                }
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        let growth = ChildProcess.peakResidentBytes - peakBefore

        XCTAssertEqual(failure as? InflateError, .exceedsLimit(1 << 30))
        XCTAssertEqual(membersFed, 64, "64 members of 16 MiB are exactly 1 GiB")
        XCTAssertEqual(inflater.inflatedCount, 1 << 30)
        XCTAssertLessThan(elapsed, 30, "stopped quickly")
        XCTAssertLessThan(growth, 50 << 20, "peak RSS grew by \(growth >> 20) MiB")
        print("bomb: \(member.count) bytes per member, stopped after \(elapsed) s, peak RSS +\(growth >> 10) KiB")
    }

    // MARK: The gzip command line tool

    func testGzipToolOutputInflates() throws {
        let original = Self.randomData(count: 500_000) + Data(repeating: 65, count: 500_000)
        for level in ["-1", "-6", "-9"] {
            // Without -n, gzip stores the file name and time: optional header fields.
            let compressed = try Self.runGzip([level, "-c"], input: original)
            XCTAssertEqual(try Inflater.inflate(compressed, limit: 1 << 30), original, "gzip \(level)")
        }
    }

    func testDeflaterOutputIsAcceptedByGzipTool() throws {
        let original = Self.randomData(count: 2_000_000) + Data(count: 3_000_000)
        let deflater = try XCTUnwrap(Deflater())
        var compressed = Data()
        // Fed in uneven pieces, as a request body streamed from a file would be.
        var offset = 0
        while offset < original.count {
            let end = min(original.count, offset + 77_777)
            try original[offset..<end].withUnsafeBytes { try deflater.compress($0) { compressed.append(contentsOf: $0) } }
            offset = end
        }
        try deflater.finish { compressed.append(contentsOf: $0) }
        XCTAssertEqual(try Self.runGzip(["-d", "-c"], input: compressed), original)
        XCTAssertEqual(try Self.runGzip(["-d", "-c"], input: try Deflater.gzip(Data())), Data())
    }

    // MARK: Helpers

    static func randomData(count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Inflates `data` fed in pieces cycling through `pieceSizes`.
    static func inflateInPieces(_ data: Data, pieceSizes: [Int]) throws -> Data {
        let inflater = Inflater(limit: 1 << 30)
        var result = Data()
        var offset = 0
        var index = 0
        while offset < data.count {
            let end = min(data.count, offset + pieceSizes[index % pieceSizes.count])
            try data[offset..<end].withUnsafeBytes { try inflater.inflate($0) { result.append(contentsOf: $0) } }
            offset = end
            index += 1
        }
        try inflater.finish()
        return result
    }

    /// zlib itself, independent of the code under test: windowBits 9...15 gives the zlib
    /// wrapper, -15 raw deflate.
    static func zlibCompress(_ data: Data, windowBits: Int32) -> Data {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer { stream.deallocate() }
        precondition(czlib_deflateInit2(stream, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY) == Z_OK)
        defer { deflateEnd(stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(data.count))))
        var input = [UInt8](data)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.pointee.next_in = inputBuffer.baseAddress
                stream.pointee.avail_in = uInt(inputBuffer.count)
                stream.pointee.next_out = outputBuffer.baseAddress
                stream.pointee.avail_out = uInt(outputBuffer.count)
                return deflate(stream, Z_FINISH)
            }
        }
        precondition(status == Z_STREAM_END, "one call with deflateBound room finishes")
        return Data(output.prefix(Int(stream.pointee.total_out)))
    }

    /// One gzip member of `count` zeros, compressed from a small buffer so making it does
    /// not itself allocate `count` bytes.
    static func gzipOfZeros(count: Int) throws -> Data {
        let deflater = try XCTUnwrap(Deflater())
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        var member = Data()
        for _ in 0..<(count / zeros.count) {
            try zeros.withUnsafeBytes { try deflater.compress($0) { member.append(contentsOf: $0) } }
        }
        try deflater.finish { member.append(contentsOf: $0) }
        return member
    }

    /// Runs `/bin/gzip` on `input` (from a file) and returns its output.
    static func runGzip(_ arguments: [String], input: Data) throws -> Data {
        let inputURL = FileManager.default.temporaryDirectory.appendingPathComponent("courier-gzip-\(UUID())")
        try input.write(to: inputURL)
        defer { try? FileManager.default.removeItem(at: inputURL) }
        let run = try Tool.run(URL(fileURLWithPath: "/bin/gzip"), arguments + [inputURL.path])
        guard run.exited, run.status == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSDebugDescriptionErrorKey: "gzip \(arguments) failed"])
        }
        return run.output
    }
}
