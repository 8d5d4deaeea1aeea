import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// SHA-256 and the HMACs through libcrypto, against the standards' own test vectors, and the
/// file hash read in chunks against the one-shot hash of the same bytes.
final class S3DigestsTests: XCTestCase {
    func testThatSHA256MatchesFIPS180sExamples() {
        XCTAssertEqual(Digests.hex(Digests.sha256("")), AWSSignatureV4.emptyPayloadHash)
        XCTAssertEqual(
            Digests.hex(Digests.sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            Digests.hex(Digests.sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(Digests.sha256(Array("abc".utf8)), Digests.sha256(Data("abc".utf8)))
    }

    func testThatHMACSHA256MatchesRFC4231sTestCases() {
        // Test case 1: a 20-byte key of 0x0b.
        XCTAssertEqual(
            Digests.hex(Digests.hmacSHA256(key: [UInt8](repeating: 0x0B, count: 20), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        // Test case 2: a key shorter than the block.
        XCTAssertEqual(
            Digests.hex(Digests.hmacSHA256(key: Array("Jefe".utf8), "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        // Test case 6: a key longer than the block, which HMAC hashes first.
        XCTAssertEqual(
            Digests.hex(
                Digests.hmacSHA256(
                    key: [UInt8](repeating: 0xAA, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First")
            ),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    func testThatAnEmptyKeyAndAnEmptyMessageStillMakeTheKnownHMAC() {
        XCTAssertEqual(
            Digests.hex(Digests.hmacSHA256(key: [UInt8](), "")),
            "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    func testThatAPreparedHMACKeyMatchesRFC4231sTestCases() {
        let cases: [(key: [UInt8], message: [UInt8], mac: String)] = [
            // 1: a 20-byte key; 2: a key shorter than the block; 3 and 4: 50-byte messages.
            (
                [UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                Array(1...25), [UInt8](repeating: 0xCD, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            // 6 and 7: a key longer than the block, hashed first; 7's message is longer than one too.
            (
                [UInt8](repeating: 0xAA, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                [UInt8](repeating: 0xAA, count: 131),
                Array(
                    ("This is a test using a larger than block-size key and a larger than block-size data. The key "
                        + "needs to be hashed before being used by the HMAC algorithm.").utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ]
        for (number, test) in cases.enumerated() {
            let key = HMACSHA256Key(test.key)
            XCTAssertEqual(
                Digests.hex(test.message.withUnsafeBytes { key.authenticationCode(of: $0) }), test.mac, "case \(number)"
            )
            // The same key used again gives the same MAC: its prepared states are not consumed.
            XCTAssertEqual(
                Digests.hex(test.message.withUnsafeBytes { key.authenticationCode(of: $0) }), test.mac, "case \(number)"
            )
        }
    }

    func testThatAPreparedHMACKeyMatchesOneShotHMACAroundTheBlockLength() {
        // Keys either side of SHA-256's 64-byte block (padded, or hashed first), messages of every
        // length over the first few blocks and the 55/56 bytes where the padding needs a block more.
        var generator = SeededGenerator(seed: 4231)
        let random = { (count: Int) in (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        for keyLength in [0, 1, 31, 32, 55, 56, 63, 64, 65, 127, 128, 200] {
            let keyBytes = random(keyLength)
            let key = HMACSHA256Key(keyBytes)
            for messageLength in Array(0...200) + [255, 256, 257, 1000, 4096] {
                let message = random(messageLength)
                XCTAssertEqual(
                    message.withUnsafeBytes { key.authenticationCode(of: $0) },
                    Digests.hmacSHA256(key: keyBytes, bytes: message), "key \(keyLength), message \(messageLength)")
            }
        }
        XCTAssertEqual(HMACSHA256Key([UInt8]()).authenticationCode(of: ""), Digests.hmacSHA256(key: [UInt8](), ""))
    }

    func testThatHMACSHA1MatchesRFC2202sTestCases() {
        XCTAssertEqual(
            Digests.hex(Digests.hmacSHA1(key: [UInt8](repeating: 0x0B, count: 20), "Hi There")),
            "b617318655057264e28bc0b6fb378c8ef146be00")
        XCTAssertEqual(
            Digests.hex(Digests.hmacSHA1(key: Array("Jefe".utf8), "what do ya want for nothing?")),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
    }

    func testThatAFileHashedInChunksMatchesItsBytesHashedAtOnce() throws {
        // Past four 256 KiB chunks and not a multiple of any chunk size used below.
        var generator = SeededGenerator(seed: 34)
        let bytes = (0..<(1024 * 1024 + 7)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try makeTemporaryDirectory("s3-digest").writeFile("body", Data(bytes))
        let expected = Digests.hex(Digests.sha256(bytes))
        XCTAssertEqual(try SHA256Hasher.hexDigest(ofFileAtPath: path), expected)
        XCTAssertEqual(try SHA256Hasher.hexDigest(ofFileAtPath: path, chunkSize: 1000), expected)
        XCTAssertEqual(try SHA256Hasher.hexDigest(ofFileAtPath: path, chunkSize: 4096), expected)
    }

    func testThatAnEmptyFileHashesToTheEmptyPayloadHash() throws {
        let path = try makeTemporaryDirectory("s3-digest").writeFile("empty", Data())
        XCTAssertEqual(try SHA256Hasher.hexDigest(ofFileAtPath: path), AWSSignatureV4.emptyPayloadHash)
    }

    func testThatAMissingFileFailsAsABodyThatCannotBeRead() throws {
        let path = try makeTemporaryDirectory("s3-digest").appendingPathComponent("absent").path
        XCTAssertThrowsError(try SHA256Hasher.hexDigest(ofFileAtPath: path)) { error in
            let error = error as? HTTPRequestError
            XCTAssertEqual(error?.type, .internalErrorWhileBuildingRequest)
            XCTAssertTrue(error?.message.contains(path) == true, error?.message ?? "")
            XCTAssertEqual((error?.underlyingError as? POSIXError)?.code, .ENOENT)
        }
    }

    func testThatAHasherStartsAgainAfterGivingItsDigest() {
        let hasher = SHA256Hasher()
        for piece in ["a", "b", "c"] { Array(piece.utf8).withUnsafeBytes { hasher.update($0) } }
        XCTAssertEqual(hasher.finalize(), Digests.sha256("abc"))
        XCTAssertEqual(Digests.hex(hasher.finalize()), AWSSignatureV4.emptyPayloadHash)
    }
}
