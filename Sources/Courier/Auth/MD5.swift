/// MD5 (RFC 1321), for Digest authentication's MD5 and MD5-sess (`DigestAuthorization`), and
/// `courier get --checksums` (hence package-wide).
///
/// Written out when Courier linked no crypto library (Foundation on Linux has no digest API);
/// libcrypto is linked now, for the S3 signers (`Digests`), so this could move onto it. Broken for security on its own, it is what those Digest algorithms
/// are defined with; a server that offers SHA-256 gets SHA-256. Not constant-time.
package struct MD5 {
    /// The chaining state A, B, C, D, starting from the RFC's initial values.
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    /// Input waiting for a complete 64-byte block.
    private var pending: [UInt8] = []
    /// Total input length in bytes.
    private var length: UInt64 = 0

    package init() {
        pending.reserveCapacity(64)
    }

    /// Adds more input.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var rest = bytes
        if !pending.isEmpty {
            let taken = min(64 - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(taken))
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(taken))
            guard pending.count == 64 else { return }
            pending.withUnsafeBytes { processBlock($0.baseAddress!) }
            pending.removeAll(keepingCapacity: true)
        }
        // Whole blocks straight from the input, without copying them.
        while rest.count >= 64 {
            processBlock(rest.baseAddress!)
            rest = UnsafeRawBufferPointer(rebasing: rest.dropFirst(64))
        }
        pending.append(contentsOf: rest)
    }

    /// The 16-byte digest. Pads a copy, so the value itself is unchanged.
    package func finalize() -> [UInt8] {
        var copy = self
        let bitLength = length &* 8
        // A 1 bit, zeros up to 56 mod 64, then the length in bits, little-endian.
        var padding: [UInt8] = [0x80]
        padding += [UInt8](repeating: 0, count: (55 - Int(length % 64) + 64) % 64)
        padding += (0..<8).map { UInt8(truncatingIfNeeded: bitLength >> (8 * $0)) }
        padding.withUnsafeBytes { copy.update($0) }
        precondition(copy.pending.isEmpty, "MD5 padding must end on a block boundary")
        let words = [copy.state.0, copy.state.1, copy.state.2, copy.state.3]
        return words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
    }

    /// The digest as 32 lowercase hex digits.
    package func finalizeHex() -> String {
        finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The digest of `text`'s UTF-8 bytes as 32 lowercase hex digits.
    static func hexDigest(_ text: String) -> String {
        var md5 = MD5()
        var text = text
        text.withUTF8 { md5.update(UnsafeRawBufferPointer($0)) }
        return md5.finalizeHex()
    }

    /// One round of the compression function over a 64-byte block (RFC 1321 §3.4).
    private mutating func processBlock(_ block: UnsafeRawPointer) {
        var words = [UInt32](repeating: 0, count: 16)
        for index in 0..<16 {
            words[index] = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
        }
        var (a, b, c, d) = state
        for step in 0..<64 {
            let mixed: UInt32
            let wordIndex: Int
            switch step {
            case 0..<16:
                mixed = (b & c) | (~b & d)
                wordIndex = step
            case 16..<32:
                mixed = (d & b) | (~d & c)
                wordIndex = (5 * step + 1) % 16
            case 32..<48:
                mixed = b ^ c ^ d
                wordIndex = (3 * step + 5) % 16
            default:
                mixed = c ^ (b | ~d)
                wordIndex = (7 * step) % 16
            }
            let sum = mixed &+ a &+ Self.sines[step] &+ words[wordIndex]
            let shift = Self.shifts[step]
            (a, d, c) = (d, c, b)
            b = b &+ (sum << shift | sum >> (32 - shift))
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d)
    }

    /// Left-rotation amounts per step.
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// `floor(abs(sin(i + 1)) * 2^32)`, the RFC's table T, spelled out rather than
    /// computed so it cannot depend on the platform's `sin`.
    private static let sines: [UInt32] = [
        0xD76A_A478, 0xE8C7_B756, 0x2420_70DB, 0xC1BD_CEEE, 0xF57C_0FAF, 0x4787_C62A, 0xA830_4613, 0xFD46_9501,
        0x6980_98D8, 0x8B44_F7AF, 0xFFFF_5BB1, 0x895C_D7BE, 0x6B90_1122, 0xFD98_7193, 0xA679_438E, 0x49B4_0821,
        0xF61E_2562, 0xC040_B340, 0x265E_5A51, 0xE9B6_C7AA, 0xD62F_105D, 0x0244_1453, 0xD8A1_E681, 0xE7D3_FBC8,
        0x21E1_CDE6, 0xC337_07D6, 0xF4D5_0D87, 0x455A_14ED, 0xA9E3_E905, 0xFCEF_A3F8, 0x676F_02D9, 0x8D2A_4C8A,
        0xFFFA_3942, 0x8771_F681, 0x6D9D_6122, 0xFDE5_380C, 0xA4BE_EA44, 0x4BDE_CFA9, 0xF6BB_4B60, 0xBEBF_BC70,
        0x289B_7EC6, 0xEAA1_27FA, 0xD4EF_3085, 0x0488_1D05, 0xD9D4_D039, 0xE6DB_99E5, 0x1FA2_7CF8, 0xC4AC_5665,
        0xF429_2244, 0x432A_FF97, 0xAB94_23A7, 0xFC93_A039, 0x655B_59C3, 0x8F0C_CC92, 0xFFEF_F47D, 0x8584_5DD1,
        0x6FA8_7E4F, 0xFE2C_E6E0, 0xA301_4314, 0x4E08_11A1, 0xF753_7E82, 0xBD3A_F235, 0x2AD7_D2BB, 0xEB86_D391,
    ]
}
