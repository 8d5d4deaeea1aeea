import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// A response whose Content-Encoding lists several codings is decoded in order, the last listed
/// first (RFC 9110 §8.4), in every inflation mode; a coding Courier cannot decode, or more than
/// five, fails with `compression` instead of finishing with a half-decoded body; and
/// `maxInflatedBytes` bounds the chain's output. Nested codings are a decompression-bomb vector:
/// CWE-409 (improper handling of highly compressed data); curl's own CVE-2022-32206 and
/// CVE-2023-23916 were this class: an unbounded number of compression steps, in one field and
/// across several fields, which curl since bounds at five as Courier does.
final class ContentCodingChainTests: XCTestCase {
    private var directory: URL!
    private let size = 200_000

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-codings")
    }

    override func tearDown() {
        HTTPRequest.maxInflatedBytes = 1 << 30
        super.tearDown()
    }

    private func run(
        _ codings: [String], count: Int? = nil, split: Bool = false, mode: BodyMode, waits: Bool,
        grace: TimeInterval = 0.3
    ) -> OutcomeRun {
        let route = Route.encoded(count ?? size, codings: codings, splitFields: split)
        return OutcomeRun.run(Fixture.url(route), mode: mode, in: directory, grace: grace) {
            $0.shouldWaitToInflateCompressedResponses = waits
        }
    }

    /// The modes in which the body is inflated during the transfer or into a download file,
    /// where a chain that cannot be undone fails the request; lazily in memory it finishes and
    /// `responseData()` is nil (ASI), and a lazy data delegate gets the bytes as sent.
    private static let failingModes: [(BodyMode, waits: Bool)] = [
        (.memory, false), (.download, true), (.download, false), (.dataDelegate, false),
    ]

    func testThatEveryChainOfKnownCodingsIsDecodedInOrderInEveryMode() {
        let chains = [
            ["gzip", "gzip"], ["deflate", "gzip"], ["gzip", "deflate"], ["gzip", "identity"], ["identity", "gzip"],
            ["x-gzip", "deflate"], ["GZIP", "Deflate"], ["gzip", "gzip", "gzip", "gzip", "gzip"],
        ]
        let expected = TestServer.deterministicBytes(count: size)
        for codings in chains {
            for mode in BodyMode.allCases {
                for waits in [true, false] {
                    let context = "\(codings) in \(mode), waits \(waits)"
                    // A success has no second callback to wait for: only a short grace.
                    let run = run(codings, mode: mode, waits: waits, grace: 0.02)
                    run.assertFinished(context)
                    XCTAssertTrue(run.request.isResponseCompressed, context)
                    if mode == .dataDelegate {
                        // Lazily, a data delegate gets the body as sent; otherwise inflated.
                        if !waits { XCTAssertEqual(run.delegate.bytesDelivered, size, context) }
                    } else {
                        XCTAssertEqual(run.body, expected, context)
                    }
                }
            }
        }
    }

    func testThatUnknownCodingsFailWithCompression() {
        // Courier asks for "gzip, deflate" only; a server that sends anything else anyway must
        // not have its bytes taken for the body.
        for codings in [["br"], ["zstd"], ["compress"], ["foo"], ["br", "gzip"], ["gzip", "br"]] {
            let unknown = codings.first { $0 != "gzip" }!
            for (mode, waits) in Self.failingModes {
                let context = "\(codings) in \(mode), waits \(waits)"
                let run = run(codings, mode: mode, waits: waits)
                run.assertFailed(with: .compression, messageContains: "\"\(unknown)\"", context)
                XCTAssertTrue(run.request.isResponseCompressed, context)
            }
            let lazy = run(codings, mode: .memory, waits: true)
            lazy.assertFinished("\(codings) lazily in memory")
            XCTAssertTrue(lazy.request.isResponseCompressed)
            XCTAssertNil(lazy.request.responseData(), "\(codings): nothing Courier can decode")
            XCTAssertNotNil(lazy.request.rawResponseData, "\(codings): the bytes as sent stay readable")
        }
    }

    func testThatMoreThanFiveCodingsFailWithCompression() {
        // gzip six times over: one layer undone, five left, and before this fix a success.
        let six = Array(repeating: "gzip", count: 6)
        for (mode, waits) in Self.failingModes {
            let context = "six gzips in \(mode), waits \(waits)"
            let run = run(six, mode: mode, waits: waits)
            run.assertFailed(with: .compression, messageContains: "6 content codings", context)
            XCTAssertEqual(run.delegate.bytesDelivered, 0, "\(context): nothing half-decoded handed out")
        }
        let lazy = run(six, mode: .memory, waits: true)
        lazy.assertFinished("six gzips lazily in memory")
        XCTAssertNil(lazy.request.responseData())
        // Identity layers count too: the bound is on the list a server can make Courier walk.
        let padded = run(["gzip"] + Array(repeating: "identity", count: 5), mode: .memory, waits: false)
        padded.assertFailed(with: .compression, messageContains: "6 content codings", "gzip and five identities")
    }

    func testThatMaxInflatedBytesBoundsTheChainsOutput() {
        // gzip of gzip: the outer layer inflates to a few KiB, the inner one past the bound.
        // Before chains were decoded, only the outer layer counted and the bound never tripped.
        HTTPRequest.maxInflatedBytes = 100_000
        let codings = ["gzip", "gzip"]
        for (mode, waits) in Self.failingModes {
            let context = "bounded \(codings) in \(mode), waits \(waits)"
            run(codings, mode: mode, waits: waits).assertFailed(
                with: .compression, messageContains: "limit of 100000 bytes", context)
        }
        let lazy = run(codings, mode: .memory, waits: true)
        lazy.assertFinished("bounded chain lazily in memory")
        XCTAssertNil(lazy.request.responseData(), "past the bound")
        // Under the bound, the same chain decodes.
        let small = run(codings, count: 90_000, mode: .memory, waits: false)
        small.assertFinished("a chain under the bound")
        XCTAssertEqual(small.body, TestServer.deterministicBytes(count: 90_000))
    }

    func testThatIdentityAloneIsNotCompressed() {
        for waits in [true, false] {
            let run = run(["identity"], mode: .memory, waits: waits)
            run.assertFinished("identity, waits \(waits)")
            XCTAssertFalse(run.request.isResponseCompressed)
            XCTAssertEqual(run.body, TestServer.deterministicBytes(count: size))
        }
    }

    func testThatAChainSplitOverSeveralFieldsIsOneChain() {
        // RFC 9110 §5.3: "Content-Encoding: deflate" then "Content-Encoding: gzip" is the list
        // "deflate, gzip". curl CVE-2023-23916 was the bound on codings counted per field only.
        let expected = TestServer.deterministicBytes(count: size)
        for mode in BodyMode.allCases where mode != .dataDelegate {
            for waits in [true, false] {
                let context = "split fields in \(mode), waits \(waits)"
                let run = run(["deflate", "gzip"], split: true, mode: mode, waits: waits, grace: 0.02)
                run.assertFinished(context)
                XCTAssertTrue(run.request.isResponseCompressed, context)
                XCTAssertEqual(run.body, expected, context)
            }
        }
        // "identity" first, then a real coding in a field of its own: still compressed.
        let late = run(["identity", "gzip"], split: true, mode: .memory, waits: false, grace: 0.02)
        late.assertFinished("identity, then gzip in a second field")
        XCTAssertEqual(late.body, expected)
        let six = run(Array(repeating: "gzip", count: 6), split: true, mode: .memory, waits: false)
        six.assertFailed(with: .compression, messageContains: "6 content codings", "six gzip fields")
    }

    func testThatTheChainReadsItsCodingsAsRFC9110Lists() {
        XCTAssertEqual(InflaterChain.codings(in: ["gzip", " GZIP ,, identity ", ""]), ["gzip", "gzip", "identity"])
        XCTAssertFalse(InflaterChain.isCompressed(["identity", " , "]))
        XCTAssertTrue(InflaterChain.isCompressed(["identity", "br"]))
        // No body at all is no body, whatever a 204 or 304 says its coding is.
        XCTAssertEqual(try InflaterChain.inflate(Data(), contentEncodings: ["br"], limit: 10), Data())
        XCTAssertThrowsError(try InflaterChain.inflate(Data([1, 2]), contentEncodings: ["br"], limit: 10)) {
            XCTAssertEqual($0 as? InflateError, .unsupportedCoding("br"))
        }
        let tooMany = InflaterChain(contentEncodings: ["gzip, gzip, gzip", "gzip, gzip", "identity"], limit: 10)
        XCTAssertThrowsError(try [UInt8(1)].withUnsafeBytes { try tooMany.inflate($0) { _ in } }) {
            XCTAssertEqual($0 as? InflateError, .tooManyCodings(6))
        }
    }
}
