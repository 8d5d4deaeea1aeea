import Courier
import CourierTestServer
import Foundation

/// What a download's bytes must hash to: `--checksum sha-256=HEX`, or a line of `--checksums`.
struct ExpectedChecksum: Sendable, Equatable {
    /// The hash functions courier can check with: those of `MD5SUMS` and `SHA256SUMS` files.
    enum Algorithm: String, Sendable, Equatable {
        case md5 = "md5"
        case sha256 = "sha-256"

        /// The algorithm whose hexadecimal digest has `count` digits.
        init?(hexDigits count: Int) {
            switch count {
            case 32: self = .md5
            case 64: self = .sha256
            default: return nil
            }
        }
    }

    let algorithm: Algorithm
    /// The digest, lowercase hexadecimal.
    let hex: String

    init(algorithm: Algorithm, hex: String) {
        self.algorithm = algorithm
        self.hex = hex.lowercased()
    }

    /// "sha-256=HEX", "sha256=HEX" or "md5=HEX".
    init(parsing text: String, command: String) throws(UsageError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        let names: [String: Algorithm] = ["sha-256": .sha256, "sha256": .sha256, "md5": .md5]
        guard parts.count == 2, let algorithm = names[parts[0].lowercased()] else {
            throw UsageError("--checksum needs sha-256=HEX or md5=HEX (got \"\(text)\")", command: command)
        }
        guard Self.isHex(parts[1]), Algorithm(hexDigits: parts[1].count) == algorithm else {
            throw UsageError(
                "--checksum: \"\(parts[1])\" is not a \(algorithm.rawValue) digest in hexadecimal", command: command)
        }
        self.init(algorithm: algorithm, hex: parts[1])
    }

    static func isHex(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.allSatisfy(\.isHexDigit)
    }

    /// The file's digest with this checksum's algorithm, read 64 KiB at a time so that memory
    /// stays flat whatever its size.
    func digest(ofFileAt path: String) throws -> String {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        // Opened for reading: a close that fails loses nothing.
        defer { try? handle.close() }
        switch algorithm {
        case .md5:
            var md5 = MD5()
            while let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty {
                chunk.withUnsafeBytes { md5.update($0) }
            }
            return md5.finalizeHex()
        case .sha256:
            return try SHA256.hexDigest {
                guard let chunk = try handle.read(upToCount: 65_536), !chunk.isEmpty else { return nil }
                return chunk
            }
        }
    }
}
