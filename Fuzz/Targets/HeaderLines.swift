@testable import Courier
import Foundation

/// Header lines as libcurl's header callback hands them over, through `ResponseHeadParser`, then
/// the head's `RawHeaderBlock` read every way the library reads it, and `HTTPHeaders`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHeaderLines(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    var parser = ResponseHeadParser()
    var heads: [ResponseHead] = []
    for var line in input.lines {
        line.append(0x0A)
        if let head = line.withUnsafeBytes({ parser.consume($0) }) { heads.append(head) }
        _ = line.withUnsafeBytes { ResponseHeadParser.keepAliveTimeout(in: $0) }
    }
    _ = parser.malformation
    for head in heads { check(head) }
    return 0
}

private func check(_ head: ResponseHead) {
    // By bytes: String's hasPrefix compares characters, and "HTTP/" followed by a combining
    // mark (U+0334) does not start with the character "/".
    fuzzCheck(head.statusLine.utf8.starts(with: "HTTP/".utf8), "a head without a status line")
    fuzzCheck((0...999).contains(head.statusCode), "status code \(head.statusCode)")
    fuzzCheck(!(100..<200).contains(head.statusCode), "an interim 1xx head was returned")
    if let length = head.contentLength { fuzzCheck(length >= 0, "negative Content-Length") }
    let block = head.headerBlock
    let headers = block.parsed()
    for (name, value) in headers {
        fuzzCheck(!name.contains(":"), "a field name with a colon: \(name.debugDescription)")
        fuzzCheck(headers[name] != nil, "subscript misses \(name.debugDescription)")
        // Names the block can be asked for by their own bytes (U+FFFD stands for bytes that
        // were not UTF-8, which a lookup cannot spell).
        guard !name.unicodeScalars.contains("\u{FFFD}") else { continue }
        guard let first = block.value(of: name) else {
            fuzzCheck(false, "value(of:) misses \(name.debugDescription)")
            return
        }
        let all = block.values(of: name)
        for one in all { fuzzCheck(one == one.trimmingHTTPWhitespace(), "an untrimmed value: \(one.debugDescription)") }
        fuzzCheck(all.first == first, "values(of:) disagrees with value(of:)")
        if name.equalsIgnoringASCIICase("Set-Cookie") {
            // Set-Cookie fields stay apart: each is one of the block's values.
            fuzzCheck(all.contains(value), "a Set-Cookie field is not among values(of:)")
        } else {
            fuzzCheck(value.utf8.starts(with: first.utf8), "value(of:) \(first.debugDescription) is not first")
            fuzzCheck(all.joined(separator: ", ") == value, "the joined values differ for \(name.debugDescription)")
        }
    }
    // A block made from the headers (a cached response) reads back as the same headers, but for
    // the space of a joined empty value at the end (", " of two empty fields reads back ",").
    let rebuilt = RawHeaderBlock(headers).parsed()
    fuzzCheck(rebuilt.count == headers.count, "RawHeaderBlock(headers).parsed() has other fields")
    for (a, b) in zip(rebuilt, headers) {
        fuzzCheck(a.name == b.name && a.value == b.value.trimmingHTTPWhitespace(), "a rebuilt field differs")
    }
    _ = headers.dictionary
    _ = headers.description
    var copy = headers
    for (name, _) in headers { copy[name] = nil }
    fuzzCheck(copy.isEmpty, "setting nil left fields behind")
}
