@testable import Courier
import Foundation

/// Form bodies round-tripped: fields and in-memory parts made from the input (NUL-separated
/// groups of key, value, file name, Content-Type; a group with a file name is a data part), the
/// body built as `FormDataRequest` builds it, parsed back by the small parsers below, and
/// compared with what went in.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormEncoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    guard let flags = input.bytes.first else { return 0 }
    let pieces = input.bytes.dropFirst().split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    var form = FormState()
    var index = 0
    while index < pieces.count {
        let group = (0..<4).map { index + $0 < pieces.count ? pieces[index + $0] : [] }
        index += 4
        let key = String(decoding: group[0], as: UTF8.self)
        let fileName = String(decoding: group[2], as: UTF8.self)
        if fileName.isEmpty {
            form.fields.append(.init(key: key, value: String(decoding: group[1], as: UTF8.self)))
        } else {
            let type = group[3].isEmpty ? "application/octet-stream" : String(decoding: group[3], as: UTF8.self)
            form.parts.append(.init(key: key, source: .data(Data(group[1])), fileName: fileName, contentType: type))
        }
    }
    if flags & 1 != 0 { form.chosenFormat = .multipart }
    let encodings: [String.Encoding] = [.isoLatin1, .shiftJIS, .utf16, .windowsCP1252, .ascii]
    let exact = flags & 2 == 0
    if !exact { form.stringEncoding = encodings[Int(flags >> 2) % encodings.count] }
    // A Content-Type with a line break is refused before any body is built.
    if FormEncoding.refusal(ofContentTypes: form.parts.map(\.contentType)) != nil { return 0 }

    if form.effectiveFormat == .urlEncoded {
        let (body, contentType) = form.urlEncodedBody()
        fuzzCheck(contentType.hasPrefix("application/x-www-form-urlencoded; charset="), contentType)
        guard case .memory(let bytes) = body else { return abortWith("a urlencoded body in pieces") }
        let allowed = Set(Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._%=&".utf8))
        fuzzCheck(bytes.allSatisfy(allowed.contains), "an unescaped byte in \(String(decoding: bytes, as: UTF8.self))")
        if exact { checkURLEncoded(Array(bytes), form.fields) }
    } else {
        let (body, contentType) = form.multipartBody()
        guard case .pieces(let parts) = body else { return abortWith("a multipart body in memory") }
        var bytes: [UInt8] = []
        for piece in parts {
            guard case .data(let data) = piece else { return abortWith("a file piece for data parts") }
            bytes += data
        }
        guard let range = contentType.range(of: "; boundary=") else { return abortWith("no boundary") }
        let boundary = Array(contentType[range.upperBound...].utf8)
        if exact { checkMultipart(bytes, boundary: boundary, form) }
    }
    return 0
}

private func abortWith(_ message: String) -> Int32 {
    fuzzCheck(false, message)
    return 0
}

private func checkURLEncoded(_ body: [UInt8], _ fields: [FormState.Field]) {
    if fields.isEmpty { return fuzzCheck(body.isEmpty, "a body for no fields") }
    let pairs = body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
    fuzzCheck(pairs.count == fields.count, "\(pairs.count) pairs for \(fields.count) fields")
    for (pair, field) in zip(pairs, fields) {
        let halves = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
        fuzzCheck(halves.count == 2, "a pair without =")
        fuzzCheck(percentDecoded(Array(halves[0])) == Array(field.key.utf8), "a key differs")
        fuzzCheck(percentDecoded(Array(halves[1])) == Array(field.value.utf8), "a value differs")
    }
}

private func percentDecoded(_ bytes: [UInt8]) -> [UInt8]? {
    var result: [UInt8] = []
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "%") {
            guard index + 2 < bytes.count,
                let byte = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16)
            else { return nil }
            result.append(byte)
            index += 3
        } else {
            result.append(bytes[index])
            index += 1
        }
    }
    return result
}

/// The parts of a multipart body: (Content-Disposition and other header lines, content).
private func checkMultipart(_ body: [UInt8], boundary: [UInt8], _ form: FormState) {
    let crlf: [UInt8] = [13, 10]
    let dashes: [UInt8] = [45, 45]
    let opening = dashes + boundary + crlf
    let delimiter = crlf + dashes + boundary + crlf
    let closing = crlf + dashes + boundary + dashes + crlf
    fuzzCheck(body.starts(with: opening), "the body does not open with its boundary")
    fuzzCheck(body.count >= opening.count + closing.count && Array(body.suffix(closing.count)) == closing,
        "the body does not close with its boundary")
    let middle = Array(body[opening.count..<(body.count - closing.count)])
    let expected = form.fields.count + form.parts.count
    let chunks = middle.isEmpty && expected == 0 ? [] : split(middle, at: delimiter)
    fuzzCheck(chunks.count == expected, "\(chunks.count) parts for \(expected)")
    for (chunk, field) in zip(chunks, form.fields) {
        let (head, content) = headAndContent(chunk)
        fuzzCheck(content == Array(field.value.utf8), "a field's value differs")
        fuzzCheck(head.count == 1, "a field with \(head.count) header lines")
        checkQuoted(head[0], "name", field.key)
    }
    for (chunk, part) in zip(chunks.dropFirst(form.fields.count), form.parts) {
        let (head, content) = headAndContent(chunk)
        guard case .data(let data) = part.source else { continue }
        fuzzCheck(content == Array(data), "a part's data differs")
        fuzzCheck(head.count == 2, "a part with \(head.count) header lines")
        checkQuoted(head[0], "name", part.key)
        checkQuoted(head[0], "filename", part.fileName)
        fuzzCheck(head[1] == Array(("Content-Type: " + part.contentType).utf8), "a part's Content-Type differs")
    }
}

private func split(_ bytes: [UInt8], at separator: [UInt8]) -> [[UInt8]] {
    var chunks: [[UInt8]] = []
    var start = 0
    var index = 0
    while index + separator.count <= bytes.count {
        if Array(bytes[index..<(index + separator.count)]) == separator {
            chunks.append(Array(bytes[start..<index]))
            index += separator.count
            start = index
        } else {
            index += 1
        }
    }
    chunks.append(Array(bytes[start...]))
    return chunks
}

private func headAndContent(_ chunk: [UInt8]) -> ([[UInt8]], [UInt8]) {
    let pieces = split(chunk, at: [13, 10, 13, 10])
    guard pieces.count >= 2 else {
        fuzzCheck(false, "a part without an empty line after its head")
        return ([], [])
    }
    let headLength = pieces[0].count + 4
    return (split(pieces[0], at: [13, 10]), Array(chunk[headLength...]))
}

/// The `name="…"` parameter of a Content-Disposition line, un-escaped, is `original` (when the
/// original holds no "%22", "%0D" or "%0A" of its own, which WHATWG's escaping leaves as is).
/// Compared as bytes, as a server reads them: a quote followed by a combining mark is still a
/// quote there.
private func checkQuoted(_ line: [UInt8], _ parameter: String, _ original: String) {
    fuzzCheck(line.starts(with: Array("Content-Disposition: form-data; name=\"".utf8)), "a part head")
    let opening = Array(" \(parameter)=\"".utf8)
    guard let start = split(line, at: opening).dropFirst().first else { return fuzzCheck(false, "no \(parameter)") }
    guard let end = start.firstIndex(of: UInt8(ascii: "\"")) else { return fuzzCheck(false, "an unclosed \(parameter)") }
    let escaped = Array(start[..<end])
    fuzzCheck(!escaped.contains(13) && !escaped.contains(10), "a line break in \(parameter)")
    guard !["%22", "%0D", "%0A"].contains(where: { original.utf8.count >= 3 && contains(Array(original.utf8), $0) })
    else { return }
    var decoded: [UInt8] = []
    var index = 0
    while index < escaped.count {
        let next = Array(escaped[index..<min(index + 3, escaped.count)])
        switch next {
        case Array("%22".utf8): decoded.append(0x22); index += 3
        case Array("%0D".utf8): decoded.append(0x0D); index += 3
        case Array("%0A".utf8): decoded.append(0x0A); index += 3
        default: decoded.append(escaped[index]); index += 1
        }
    }
    fuzzCheck(decoded == Array(original.utf8), "\(parameter) differs from \(original.debugDescription)")
}

private func contains(_ bytes: [UInt8], _ text: String) -> Bool {
    split(bytes, at: Array(text.utf8)).count > 1
}
