/// Builds response heads from the header lines libcurl hands over one at a time.
///
/// libcurl's header callback delivers every line of every response in a transfer, the status
/// line first and an empty line last; interim 1xx responses (100 Continue) come before the final
/// one and are dropped here.
struct ResponseHeadParser {
    private var statusLine: String?
    private var statusCode = 0
    private var block = RawHeaderBlock()
    private var framing = ResponseFraming()
    private var keepAliveTimeout: UInt16?
    private var sawContentEncoding = false

    /// What makes the head being read malformed, once something does (see `ResponseFraming`):
    /// the transfer must then stop before any of its body is used.
    var malformation: String? { framing.malformation }

    /// A parser whose header block already has room for a typical response's fields. The engine
    /// thread fills it and the response's owner frees it, usually on another thread: memory made
    /// by the owner's thread goes back to its own malloc arena instead of taking the lock of the
    /// engine's (see BodyBufferPool).
    init() {
        block.reserveTypicalCapacity()
    }

    /// Feeds one line (with or without its CRLF). Returns the head when this line completed a
    /// final response head.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> ResponseHead? {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = UnsafeRawBufferPointer(rebasing: bytes[0..<end])

        if line.isEmpty {
            guard let statusLine else { return nil }
            defer { reset() }
            if (100..<200).contains(statusCode) { return nil }
            return ResponseHead(
                statusCode: statusCode, statusLine: statusLine, headerBlock: block,
                contentLength: framing.contentLength,
                keepAliveTimeout: keepAliveTimeout, hasContentEncoding: sawContentEncoding)
        }
        if Self.isStatusLine(line) {
            // The block reserved up front stays while nothing was written to it.
            if !block.isEmpty || statusLine != nil { reset() }
            // libcurl writes HTTP/2 status lines as "HTTP/2 200 ", with a trailing space.
            var end = line.count
            while end > 0, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
            statusLine = String(decoding: UnsafeRawBufferPointer(rebasing: line[0..<end]), as: UTF8.self)
            statusCode = Self.statusCode(in: line)
            return nil
        }
        guard statusLine != nil else { return nil }
        if line[0] == 0x20 || line[0] == 0x09 {
            // An obsolete folded continuation line (RFC 7230 §3.2.4): part of the previous value.
            block.appendContinuation(line)
        } else {
            // Kept as bytes: fields become Strings only when someone asks for them (a line
            // without a colon is skipped then).
            block.append(line)
            // The first byte, case folded (only "C"/"c", "T"/"t" and "K"/"k" give these with 0x20
            // set), tells the fields read here from the rest: this runs for every line.
            // A 1xx frames no body, so its framing fields are not checked (nor are they by libcurl).
            switch line[0] | 0x20 {
            case 0x63:
                if statusCode >= 200, let value = Self.value(in: line, named: "content-length:") {
                    framing.noteContentLength(value)
                } else if Self.value(in: line, named: "content-encoding:") != nil {
                    // Noted so that a response without one is not searched for its codings.
                    sawContentEncoding = true
                }
            case 0x74:
                if statusCode >= 200, Self.value(in: line, named: "transfer-encoding:") != nil {
                    framing.noteTransferEncoding()
                }
            case 0x6B:
                if let timeout = Self.keepAliveTimeout(in: line) { keepAliveTimeout = UInt16(clamping: timeout) }
            default:
                break
            }
        }
        return nil
    }

    /// Convenience for tests and callers holding a String.
    mutating func consume(_ line: String) -> ResponseHead? {
        var copy = line
        return copy.withUTF8 { consume(UnsafeRawBufferPointer($0)) }
    }

    private mutating func reset() {
        statusLine = nil
        statusCode = 0
        block = RawHeaderBlock()
        framing = ResponseFraming()
        keepAliveTimeout = nil
        sawContentEncoding = false
    }

    /// The bytes after the colon of a line naming this field (ASCII case-insensitive), or nil
    /// for a line naming another.
    private static func value(in line: UnsafeRawBufferPointer, named name: StaticString) -> UnsafeRawBufferPointer? {
        guard ASCIICase.hasPrefix(line.assumingMemoryBound(to: UInt8.self), name) else { return nil }
        return UnsafeRawBufferPointer(rebasing: line[name.utf8CodeUnitCount...])
    }

    /// The `timeout=N` parameter of a "Keep-Alive:" line ("Keep-Alive: timeout=5, max=100"),
    /// or nil for any other line or a line without one.
    static func keepAliveTimeout(in line: UnsafeRawBufferPointer) -> Int? {
        let name: StaticString = "keep-alive:"
        let bytes = line.assumingMemoryBound(to: UInt8.self)
        guard ASCIICase.hasPrefix(bytes, name) else { return nil }
        let key: StaticString = "timeout"
        var index = name.utf8CodeUnitCount
        // Parameters are separated by commas; each is `key=value`, with optional whitespace.
        while index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x2C {
                index += 1
            }
            let start = index
            while index < bytes.count, bytes[index] != 0x2C { index += 1 }
            let parameter = UnsafeBufferPointer(rebasing: bytes[start..<index])
            guard ASCIICase.hasPrefix(parameter, key) else { continue }
            var at = key.utf8CodeUnitCount
            while at < parameter.count, parameter[at] == 0x20 || parameter[at] == 0x09 { at += 1 }
            guard at < parameter.count, parameter[at] == 0x3D else { continue }
            at += 1
            while at < parameter.count, parameter[at] == 0x20 || parameter[at] == 0x09 { at += 1 }
            var value = 0
            var digits = 0
            while at < parameter.count, parameter[at] >= 0x30, parameter[at] <= 0x39, digits < 9 {
                value = value * 10 + Int(parameter[at] - 0x30)
                at += 1
                digits += 1
            }
            if digits > 0 { return value }
        }
        return nil
    }

    /// Whether the line starts with "HTTP/" (compared byte by byte: this runs for every line).
    private static func isStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F
    }

    /// The three digits after the first space: "HTTP/1.1 404 Not Found" → 404, "HTTP/2 200" → 200.
    private static func statusCode(in line: UnsafeRawBufferPointer) -> Int {
        guard let space = line.firstIndex(of: 0x20) else { return 0 }
        var code = 0
        var index = space + 1
        while index < line.count, index < space + 4 {
            let digit = line[index]
            guard digit >= 0x30, digit <= 0x39 else { return 0 }
            code = code * 10 + Int(digit - 0x30)
            index += 1
        }
        return index == space + 4 ? code : 0
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        if first == scalars.startIndex && last == scalars.index(before: scalars.endIndex) { return self }
        return String(scalars[first...last])
    }
}
