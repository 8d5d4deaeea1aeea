/// An `s3://BUCKET/KEY` operand: the bucket, and the key (empty for a bucket alone, or for
/// `s3://BUCKET/`).
struct S3Location: Equatable, CustomStringConvertible {
    let bucket: String
    let key: String

    /// Nil when `text` does not start with `s3://` (a local path, or `-`).
    init?(_ text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/")
        bucket = String(slash.map { rest[..<$0] } ?? rest)
        key = slash.map { String(rest[rest.index(after: $0)...]) } ?? ""
    }

    init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    var description: String { "s3://\(bucket)/\(key)" }

    /// The key's last segment, what a file downloaded into a folder is named ("2024/cat.jpg" →
    /// "cat.jpg"; a folder marker's "photos/2024/" → "2024").
    var lastSegment: String {
        key.split(separator: "/").last.map(String.init) ?? ""
    }
}
