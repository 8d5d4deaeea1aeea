import Foundation

/// The Netscape cookie file behind `HTTPRequest.cookieFilePath`: read whole, written whole to a
/// temporary file beside it (mode 0600: cookies are credentials) that is then renamed over it,
/// so a reader — the next process — sees the old file or the new one, never half of one.
enum CookieFile {
    static let header = "# Netscape HTTP Cookie File\n# Written by Courier; libcurl and curl -b read it too.\n\n"

    /// The cookie lines of the file (comments and blank lines left out, `#HttpOnly_` lines
    /// kept), or none when it does not exist.
    static func lines(at path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            guard !line.isEmpty, !line.hasPrefix("#") || line.hasPrefix(NetscapeCookieLine.httpOnlyPrefix) else {
                return nil
            }
            return String(line)
        }
    }

    /// Replaces the file with `lines`, atomically. Expired cookies are left out.
    static func save(_ lines: [String], to path: String, now: Date = Date()) throws {
        let seconds = Int64(now.timeIntervalSince1970)
        var text = header
        for line in lines {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count >= 5, let expiry = Int64(fields[4]), expiry != 0, expiry < seconds { continue }
            text += line + "\n"
        }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
            .path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CookieFileError(path: temporary, operation: "create", code: errno) }
        var failure: CookieFileError?
        // The mode again: the umask may have taken bits away at creation, never added any.
        if fchmod(descriptor, 0o600) != 0 {
            failure = CookieFileError(path: temporary, operation: "chmod", code: errno)
        }
        var bytes = Array(text.utf8)
        var written = 0
        while failure == nil, written < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                write(descriptor, $0.baseAddress! + written, $0.count - written)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                failure = CookieFileError(path: temporary, operation: "write", code: errno)
                break
            }
            written += count
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = CookieFileError(path: temporary, operation: "fsync", code: errno)
        }
        close(descriptor)
        bytes.removeAll()
        if failure == nil, rename(temporary, path) != 0 {
            failure = CookieFileError(path: path, operation: "rename onto", code: errno)
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }
}

/// A cookie file that could not be written.
struct CookieFileError: Error, CustomStringConvertible {
    var path: String
    var operation: String
    var code: Int32

    var description: String { "could not \(operation) \(path): \(String(cString: strerror(code)))" }
}
