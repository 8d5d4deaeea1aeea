extension String {
    /// Compares two strings ignoring ASCII case, without allocating.
    ///
    /// HTTP field names and tokens are ASCII and case-insensitive; `lowercased()` would
    /// allocate on every header of every request on the hot path.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = utf8, rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).allSatisfy { Self.asciiLower($0) == Self.asciiLower($1) }
    }

    /// Whether this comma-separated header value (e.g. `Connection: keep-alive, Upgrade`)
    /// contains `token`, compared case-insensitively.
    func containsHTTPToken(_ token: String) -> Bool {
        split(separator: ",").contains { element in
            String(element.trimmingHTTPWhitespace()).equalsIgnoringASCIICase(token)
        }
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        (byte >= 0x41 && byte <= 0x5A) ? byte | 0x20 : byte
    }
}

extension Substring {
    /// This text without leading and trailing spaces and tabs.
    func trimmingHTTPWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
