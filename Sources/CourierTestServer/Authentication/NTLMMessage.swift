/// NTLM's three messages (MS-NLMP §2.2) as far as the NTLM route needs them: reading a
/// client's Type 1 and Type 3, writing the Type 2 challenge, and checking an NTLMv2 response.
enum NTLMMessage {
    /// The flags the server's Type 2 sets.
    enum Flag {
        static let unicode: UInt32 = 0x0000_0001
        static let oem: UInt32 = 0x0000_0002
        static let requestTarget: UInt32 = 0x0000_0004
        static let ntlm: UInt32 = 0x0000_0200
        static let alwaysSign: UInt32 = 0x0000_8000
        static let targetTypeDomain: UInt32 = 0x0001_0000
        /// "NTLM2 session key"; libcurl answers a Type 2 carrying it with NTLMv2 responses.
        static let ntlm2Key: UInt32 = 0x0008_0000
        static let targetInfo: UInt32 = 0x0080_0000
    }

    static let signature: [UInt8] = Array("NTLMSSP".utf8) + [0]
    /// The server's NetBIOS domain in the Type 2 (target name and target info).
    static let serverDomain = "COURIER"

    /// The message type (1, 2 or 3) of a decoded message, or nil if it is not NTLMSSP.
    static func type(of message: [UInt8]) -> UInt32? {
        guard message.count >= 12, Array(message[0..<8]) == signature else { return nil }
        return read32(message, 8)
    }

    /// The flags of a Type 1 message (0 if it has none).
    static func negotiateFlags(_ type1: [UInt8]) -> UInt32 {
        type1.count >= 16 ? read32(type1, 12) : 0
    }

    /// A Type 2 message with `challenge`, the given flags, and target info naming ``serverDomain``.
    static func challenge(_ challenge: [UInt8], flags: UInt32) -> (message: [UInt8], targetInfo: [UInt8]) {
        let unicode = flags & Flag.unicode != 0
        let targetName = unicode ? utf16LE(serverDomain) : Array(serverDomain.utf8)
        let domain = utf16LE(serverDomain)
        let computer = utf16LE("COURIERTEST")
        var targetInfo: [UInt8] = []
        for (kind, value) in [(UInt16(2), domain), (1, computer)] {
            targetInfo += le16(kind) + le16(UInt16(value.count)) + value
        }
        targetInfo += [0, 0, 0, 0]
        let targetNameOffset = 48
        let targetInfoOffset = targetNameOffset + targetName.count
        var message = signature + le32(2)
        message += le16(UInt16(targetName.count)) + le16(UInt16(targetName.count)) + le32(UInt32(targetNameOffset))
        message += le32(flags) + challenge + [UInt8](repeating: 0, count: 8)
        message += le16(UInt16(targetInfo.count)) + le16(UInt16(targetInfo.count)) + le32(UInt32(targetInfoOffset))
        return (message + targetName + targetInfo, targetInfo)
    }

    /// The fields of a Type 3 message the route checks.
    struct Authenticate {
        var ntResponse: [UInt8]
        var domain: String
        var user: String
        var workstation: String
    }

    /// Reads a Type 3 message whose strings are UTF-16LE when `unicode`, else OEM (taken as UTF-8).
    static func authenticate(_ message: [UInt8], unicode: Bool) -> Authenticate? {
        guard type(of: message) == 3, message.count >= 52 else { return nil }
        func buffer(_ at: Int) -> [UInt8]? {
            let length = Int(read16(message, at))
            let offset = Int(read32(message, at + 4))
            guard offset >= 0, offset + length <= message.count else { return nil }
            return Array(message[offset..<(offset + length)])
        }
        func text(_ at: Int) -> String? {
            guard let bytes = buffer(at) else { return nil }
            guard unicode else { return String(decoding: bytes, as: UTF8.self) }
            guard bytes.count % 2 == 0 else { return nil }
            let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
            return String(decoding: units, as: UTF16.self)
        }
        guard let nt = buffer(20), let domain = text(28), let user = text(36), let host = text(44) else { return nil }
        return Authenticate(ntResponse: nt, domain: domain, user: user, workstation: host)
    }

    /// Whether `ntResponse` is the NTLMv2 response (MS-NLMP §3.3.2) to `challenge` for this
    /// user, domain and password: HMAC-MD5 under the NTLMv2 hash of the challenge and the
    /// client's blob, followed by that blob.
    static func isValidNTLMv2(
        _ ntResponse: [UInt8], challenge: [UInt8], user: String, domain: String, password: String
    ) -> Bool {
        guard ntResponse.count > 24 else { return false }
        let ntHash = MD4.digest(utf16LE(password))
        let v2Hash = HMACMD5.authenticationCode(key: ntHash, message: utf16LE(user.uppercased() + domain))
        let blob = Array(ntResponse[16...])
        let proof = HMACMD5.authenticationCode(key: v2Hash, message: challenge + blob)
        return proof == Array(ntResponse[0..<16])
    }

    static func utf16LE(_ text: String) -> [UInt8] {
        text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    private static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func le32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    private static func read16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    private static func read32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
    }
}
