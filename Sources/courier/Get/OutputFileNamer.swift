import Foundation

/// Chooses the names downloads are saved under: the URL's last path component, made safe to
/// use as one file name and made unique with " (1)", " (2)", ... as browsers do.
enum OutputFileNamer {
    /// The name for a URL whose path ends in "/" or is empty, as wget and browsers use.
    static let fallbackName = "index.html"

    /// Linux's `NAME_MAX`: the longest file name, in bytes, most file systems take.
    static let maxNameBytes = 255

    /// The name a URL's body is saved under, before it is made unique: the last path component,
    /// percent-decoded, with the characters that cannot (`/`, NUL) or should not (control
    /// characters, which would garble the result line) be in a file name replaced by `_`.
    static func baseName(for url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        // Not `url.lastPathComponent`: it skips a trailing "/", and "/docs/" is an index page,
        // not a file called "docs".
        let lastSegment = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let decoded = lastSegment.removingPercentEncoding ?? lastSegment
        var name = String.UnicodeScalarView()
        for scalar in decoded.unicodeScalars {
            let isUnsafe = scalar == "/" || scalar.value < 0x20 || scalar.value == 0x7F
            name.append(isUnsafe ? "_" : scalar)
        }
        let result = String(name)
        return result.isEmpty || result == "." || result == ".." ? fallbackName : result
    }

    /// The `attempt`th name to try for `name`: `name` itself for 0, then "stem (n).ext", the
    /// stem shortened where needed so the result fits in `maxNameBytes`.
    static func candidate(_ name: String, attempt: Int) -> String {
        let (stem, fileExtension) = splitExtension(name)
        let suffix = attempt == 0 ? "" : " (\(attempt))"
        let room = maxNameBytes - suffix.utf8.count - fileExtension.utf8.count
        return shortened(stem, toBytes: room) + suffix + fileExtension
    }

    /// Splits "report.pdf" into ("report", ".pdf") and "site.tar.gz" into ("site", ".tar.gz"), so
    /// a number goes where a reader expects it. Only a short alphanumeric tail counts as an
    /// extension: "v1.2 notes" and ".profile" have none.
    static func splitExtension(_ name: String) -> (stem: String, fileExtension: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        let tail = name[name.index(after: dot)...]
        guard (1...10).contains(tail.count), tail.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            return (name, "")
        }
        var stem = name[..<dot]
        var fileExtension = name[dot...]
        if stem.count > 4, stem.lowercased().hasSuffix(".tar") {
            fileExtension = name[stem.index(stem.endIndex, offsetBy: -4)...]
            stem = stem.dropLast(4)
        }
        return (String(stem), String(fileExtension))
    }

    /// `text` cut, on a character boundary, to at most `limit` bytes of UTF-8.
    private static func shortened(_ text: String, toBytes limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = Substring(text)
        while result.utf8.count > limit, !result.isEmpty { result = result.dropLast() }
        return String(result)
    }
}
