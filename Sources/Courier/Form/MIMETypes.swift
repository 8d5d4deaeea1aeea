import Foundation

/// Media types by file extension: the system's /etc/mime.types (Debian's media-types package),
/// read once, with a small built-in table for when it is missing.
enum MIMETypes {
    static func type(forExtension pathExtension: String) -> String? {
        let key = pathExtension.lowercased()
        return system[key] ?? builtIn[key]
    }

    /// /etc/mime.types: "type ext ext …" per line, '#' comments.
    private static let system: [String: String] = {
        guard let text = try? String(contentsOfFile: "/etc/mime.types", encoding: .utf8) else { return [:] }
        var table: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let type = words.first, words.count > 1 else { continue }
            for ext in words.dropFirst() where table[String(ext)] == nil { table[String(ext)] = String(type) }
        }
        return table
    }()

    private static let builtIn: [String: String] = [
        "txt": "text/plain", "text": "text/plain", "html": "text/html", "htm": "text/html", "css": "text/css",
        "csv": "text/csv", "xml": "application/xml", "json": "application/json", "js": "text/javascript",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "pdf": "application/pdf",
        "zip": "application/zip", "gz": "application/gzip", "tar": "application/x-tar", "mp3": "audio/mpeg",
        "wav": "audio/x-wav", "mp4": "video/mp4", "mov": "video/quicktime", "doc": "application/msword",
        "rtf": "application/rtf", "bin": "application/octet-stream",
    ]
}
