import XCTest

@testable import CourierTestServer

/// MD4 and HMAC-MD5, which the NTLM route checks responses with, against their RFCs' vectors.
final class NTLMCryptoTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testMD4MatchesRFC1320() {
        let vectors = [
            "": "31d6cfe0d16ae931b73c59d7e0c089c0",
            "a": "bde52cb31de33e46245e05fbdbd6fb24",
            "abc": "a448017aaf21d8525fc10ae87aa6729d",
            "message digest": "d9130a8164549fe818874806e1c7014b",
            "abcdefghijklmnopqrstuvwxyz": "d79e1c308aa5bbcdeea8ed63df412da9",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789": "043f8582f241db351ce627e153e7f0e4",
            String(repeating: "1234567890", count: 8): "e33b4ddc9c38f2199c3e7b164fcc0536",
        ]
        for (message, digest) in vectors {
            XCTAssertEqual(hex(MD4.digest(Array(message.utf8))), digest, message)
        }
    }

    func testHMACMD5MatchesRFC2104() {
        XCTAssertEqual(
            hex(HMACMD5.authenticationCode(key: [UInt8](repeating: 0x0B, count: 16), message: Array("Hi There".utf8))),
            "9294727a3638bb1c13f48ef8158bfc9d")
        XCTAssertEqual(
            hex(
                HMACMD5.authenticationCode(
                    key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))),
            "750c783e6ab0b503eaa86e310a5db738")
        XCTAssertEqual(
            hex(
                HMACMD5.authenticationCode(
                    key: [UInt8](repeating: 0xAA, count: 16), message: [UInt8](repeating: 0xDD, count: 50))),
            "56be34521d144c88dbb8c733f0e8b3f6")
        // A key longer than the block is hashed first (RFC 2202, test case 6).
        XCTAssertEqual(
            hex(
                HMACMD5.authenticationCode(
                    key: [UInt8](repeating: 0xAA, count: 80),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))),
            "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd")
    }
}
