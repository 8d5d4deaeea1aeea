/// MD4 (RFC 1320), one-shot: NTLM's password hash is the MD4 of the UTF-16LE password.
/// Broken for security and only used to check what an NTLM client computes.
enum MD4 {
    /// The 16-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var padded = message + [0x80]
        while padded.count % 64 != 56 { padded.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 0, to: 64, by: 8) { padded.append(UInt8(truncatingIfNeeded: bitLength >> shift)) }
        var (a, b, c, d): (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
        for block in stride(from: 0, to: padded.count, by: 64) {
            let x = (0..<16).map { word in
                (0..<4).reduce(UInt32(0)) { $0 | UInt32(padded[block + word * 4 + $1]) << (8 * UInt32($1)) }
            }
            let (aa, bb, cc, dd) = (a, b, c, d)
            func rotate(_ value: UInt32, _ by: UInt32) -> UInt32 { value << by | value >> (32 - by) }
            // Round 1: F(x, y, z) = xy | ~x z.
            for i in 0..<16 {
                let f = (b & c) | (~b & d)
                let t = rotate(a &+ f &+ x[i], [3, 7, 11, 19][i % 4])
                (a, b, c, d) = (d, t, b, c)
            }
            // Round 2: G(x, y, z) = xy | xz | yz, constant 0x5A827999.
            for i in 0..<16 {
                let g = (b & c) | (b & d) | (c & d)
                let t = rotate(a &+ g &+ x[(i % 4) * 4 + i / 4] &+ 0x5A82_7999, [3, 5, 9, 13][i % 4])
                (a, b, c, d) = (d, t, b, c)
            }
            // Round 3: H(x, y, z) = x ^ y ^ z, constant 0x6ED9EBA1.
            let order = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15]
            for i in 0..<16 {
                let t = rotate(a &+ (b ^ c ^ d) &+ x[order[i]] &+ 0x6ED9_EBA1, [3, 9, 11, 15][i % 4])
                (a, b, c, d) = (d, t, b, c)
            }
            (a, b, c, d) = (a &+ aa, b &+ bb, c &+ cc, d &+ dd)
        }
        return [a, b, c, d].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }
}

/// HMAC-MD5 (RFC 2104), for NTLMv2's hashes.
enum HMACMD5 {
    /// The 16-byte HMAC-MD5 of `message` under `key`.
    static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var key = key.count > 64 ? md5(key) : key
        key += [UInt8](repeating: 0, count: 64 - key.count)
        let inner = md5(key.map { $0 ^ 0x36 } + message)
        return md5(key.map { $0 ^ 0x5C } + inner)
    }

    private static func md5(_ bytes: [UInt8]) -> [UInt8] {
        var digest = MD5()
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.finalize()
    }
}
