import XCTest

@testable import courier

/// The names a server can suggest, unit by unit: Content-Disposition's file name, and the parts
/// of a URL's path, never leave the output folder (path traversal, CWE-22).
final class NamingSafetyTests: XCTestCase {
    func testThatContentDispositionGivesOneSafeName() {
        let cases: [(header: String?, name: String?)] = [
            ("attachment; filename=\"report.pdf\"", "report.pdf"),
            ("attachment; filename=report.pdf; size=3", "report.pdf"),
            ("attachment; filename=\"a \\\"quoted\\\" name.txt\"", "a \"quoted\" name.txt"),
            ("attachment; filename*=UTF-8''na%C3%AFve%20file.txt; filename=\"fallback.txt\"", "naïve file.txt"),
            ("attachment; filename*=iso-8859-1''caf%E9.txt", "café.txt"),
            ("attachment; filename=\"../../etc/cron.d/evil\"", "evil"),
            ("attachment; filename=\"/etc/passwd\"", "passwd"),
            ("attachment; filename=\"C:\\\\Windows\\\\win.ini\"", "win.ini"),
            ("attachment; filename*=UTF-8''..%2F..%2F.ssh%2Fauthorized_keys", "authorized_keys"),
            ("attachment; filename=\"..\"", nil),
            ("attachment; filename=\".\"", nil),
            ("attachment; filename=\"../\"", nil),
            ("attachment; filename=\".hidden\"", nil),
            ("attachment; filename*=UTF-8''nul%00byte.txt", nil),
            ("attachment; filename=\"tab\there\"", "tab_here"),
            // Found by Fuzz/Targets/ContentDisposition: a "/" or "." with a combining mark is one
            // Character, but still a separator, or a hidden file's dot.
            ("attachment; filename=\"x/\u{301}passwd\"", "\u{301}passwd"),
            ("attachment; filename=\".\u{301}bashrc\"", nil),
            ("attachment; filename=\"\(String(repeating: "x", count: 300))\"", nil),
            ("attachment; filename*=koi8-r''x.txt", nil),
            ("attachment", nil),
            ("inline; filename=\"\"", nil),
            (nil, nil),
        ]
        for (header, name) in cases {
            XCTAssertEqual(ContentDispositionName.fileName(from: header), name, header ?? "nil")
        }
    }

    func testThatURLPathsCannotNameAFileOutsideTheFolder() {
        let cases = [
            "http://127.0.0.1/%2E%2E": "index.html",
            "http://127.0.0.1/a/..%2F..%2Fetc%2Fpasswd": ".._.._etc_passwd",
            "http://127.0.0.1/nul%00byte": "nul_byte",
            "http://127.0.0.1/.": "index.html",
        ]
        for (url, name) in cases {
            let baseName = OutputFileNamer.baseName(for: URL(string: url)!)
            XCTAssertEqual(baseName, name, url)
            XCTAssertFalse(baseName.contains("/"), url)
        }
    }
}
