import Foundation

/// An `MD5SUMS` or `SHA256SUMS` file (`--checksums`): a digest per file name, as `md5sum` and
/// `sha256sum` write them ("HEX  NAME", "HEX *NAME" for binary mode) or as BSD's `-r`-less
/// tools do ("SHA256 (NAME) = HEX").
struct ChecksumList: Sendable {
    /// The expected digest of each listed name.
    let entries: [String: ExpectedChecksum]
    /// The file as given, for the result lines.
    let path: String

    /// Reads the list at `path`; a line that is none of the forms above is a usage error naming
    /// it, so a mistyped list is not taken for one that lists nothing.
    init(path: String) throws(UsageError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("--checksums: cannot read \(path)", command: "get")
        }
        var entries: [String: ExpectedChecksum] = [:]
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (number, rawLine) in lines.enumerated() {
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty, !line.hasPrefix("#") else { continue }
            guard let (name, checksum) = Self.entry(line) else {
                throw UsageError(
                    "--checksums \(path), line \(number + 1): not \"HEX  NAME\" with an MD5 or SHA-256 digest",
                    command: "get")
            }
            entries[name] = checksum
        }
        guard !entries.isEmpty else { throw UsageError("--checksums \(path) lists no files", command: "get") }
        self.entries = entries
        self.path = path
    }

    /// The digest listed for `name`, also when the list spells it "./name" or "dir/name".
    func checksum(for name: String) -> ExpectedChecksum? {
        if let exact = entries[name] { return exact }
        return entries.first { ($0.key as NSString).lastPathComponent == name }?.value
    }

    private static func entry(_ line: Substring) -> (String, ExpectedChecksum)? {
        if let bsd = line.wholeMatch(of: /(MD5|SHA256) \((.+)\) = ([0-9A-Fa-f]+)/) {
            let algorithm: ExpectedChecksum.Algorithm = bsd.1 == "MD5" ? .md5 : .sha256
            guard ExpectedChecksum.Algorithm(hexDigits: bsd.3.count) == algorithm else { return nil }
            return (String(bsd.2), ExpectedChecksum(algorithm: algorithm, hex: String(bsd.3)))
        }
        guard let gnu = line.wholeMatch(of: /([0-9A-Fa-f]+) [ *](.+)/),
            let algorithm = ExpectedChecksum.Algorithm(hexDigits: gnu.1.count)
        else { return nil }
        var name = String(gnu.2)
        if name.hasPrefix("./") { name.removeFirst(2) }
        return (name, ExpectedChecksum(algorithm: algorithm, hex: String(gnu.1)))
    }
}
