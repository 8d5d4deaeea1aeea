@testable import Courier
import Foundation

/// A Netscape cookie file (`cookieFilePath`) read as the jar reads it: its lines, each line's
/// cookie, that cookie written as a line again and read back; then the lines saved and read
/// again, as a save and the next process's load do.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCookieFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let directory = fuzzTemporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/cookies.txt"
    fuzzWriteFile(input.bytes, to: path)
    guard let lines = try? CookieFile.lines(at: path) else { return 0 }
    for line in lines {
        fuzzCheck(!line.isEmpty, "an empty line was kept")
        guard let cookie = NetscapeCookieLine.cookie(from: line[...]) else { continue }
        guard let written = NetscapeCookieLine.line(for: cookie) else { continue }
        guard let back = NetscapeCookieLine.cookie(from: written[...]) else {
            fuzzCheck(false, "a written line does not read back: \(written.debugDescription)")
            return 0
        }
        compareCookies(cookie, back, written)
    }
    let now = Date(timeIntervalSince1970: 1_764_612_680)
    do {
        try CookieFile.save(lines, to: path, now: now)
    } catch {
        fuzzCheck(false, "save failed: \(error)")
    }
    guard let saved = try? CookieFile.lines(at: path) else {
        fuzzCheck(false, "the saved file does not read")
        return 0
    }
    let kept = lines.filter { line in
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count >= 5, let expiry = Int64(fields[4]), expiry != 0 else { return true }
        return expiry >= Int64(now.timeIntervalSince1970)
    }
    fuzzCheck(saved == kept, "the saved file reads back as other lines")
    return 0
}
