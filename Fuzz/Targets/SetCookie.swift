@testable import Courier
import Foundation

/// `Set-Cookie` fields (one per line; the first byte picks the response's URL) read as
/// `responseCookies` reads them, then each cookie written as the jar's Netscape line (what
/// `addSessionCookie` does with it) and read back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSetCookie(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let selector = input.bytes.first else { return 0 }
    let urls = [
        "http://www.example.com/a/b", "https://example.com/", "http://127.0.0.1:8080/x", "http://[::1]/p/q/r",
        "http://sub.domain.example.org", "https://localhost/deep/path/file.html",
    ]
    let url = URL(string: urls[Int(selector) % urls.count])!
    let fields = String(decoding: input.bytes.dropFirst(), as: UTF8.self)
        .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let now = Date(timeIntervalSince1970: 1_764_612_680)
    for cookie in SetCookieParser.cookies(from: fields, url: url, now: now) {
        fuzzCheck(!cookie.name.isEmpty, "a cookie without a name")
        fuzzCheck(cookie.path.hasPrefix("/"), "a path that is not absolute: \(cookie.path.debugDescription)")
        guard let line = NetscapeCookieLine.line(for: cookie) else { continue }
        guard let back = NetscapeCookieLine.cookie(from: line[...]) else {
            fuzzCheck(false, "the jar's line does not read back: \(line.debugDescription)")
            return 0
        }
        compareCookies(cookie, back, line)
    }
    return 0
}
