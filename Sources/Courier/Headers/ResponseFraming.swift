/// The fields that frame a response body — Content-Length and Transfer-Encoding — checked as
/// each line of a head arrives, so a response whose body length is ambiguous is refused before
/// any of its body is read.
///
/// Two parties that read a different length from the same bytes (libcurl 7.88 takes the last
/// of two Content-Lengths, a proxy may take the first) see a different next response on the
/// same connection: HTTP response splitting / request smuggling, CWE-444. RFC 9110 §8.6 allows
/// a Content-Length repeated with the same value ("10, 10"); anything else is refused. With
/// Transfer-Encoding present RFC 9112 §6.3 lets Transfer-Encoding win but says the message
/// "ought to be handled as an error", and a server "MUST NOT" send both (§6.1): libcurl lets
/// chunked win; Courier refuses, because on a reused connection or through an intermediary the
/// pair is exactly the smuggling case, and no conforming server sends it.
struct ResponseFraming {
    /// The Content-Length so far (nil: none, or not a usable number).
    private(set) var contentLength: Int64?
    private var sawContentLength = false
    private var sawTransferEncoding = false
    /// What is wrong with the framing, once something is (it stays wrong for this head).
    private(set) var malformation: String?

    /// Notes a "Content-Length:" field's value (the bytes after the colon).
    mutating func noteContentLength(_ value: UnsafeRawBufferPointer) {
        guard malformation == nil else { return }
        sawContentLength = true
        switch Self.parseLength(value) {
        case .length(let length):
            if let earlier = contentLength, earlier != length {
                malformation = "two different Content-Length values (\(earlier), \(length))"
            } else {
                contentLength = length
            }
        case .conflicting(let first, let second):
            malformation = "two different Content-Length values (\(first), \(second))"
        case .tooLarge:
            malformation = "a Content-Length value is too large (\(Self.quoted(value)))"
        case .invalid:
            malformation = "an invalid Content-Length value (\(Self.quoted(value)))"
        }
        if sawTransferEncoding { refuseBoth() }
    }

    /// Notes a "Transfer-Encoding:" field.
    mutating func noteTransferEncoding() {
        sawTransferEncoding = true
        if sawContentLength { refuseBoth() }
    }

    private mutating func refuseBoth() {
        guard malformation == nil else { return }
        malformation = "both Content-Length and Transfer-Encoding, which frame the body differently"
    }

    private enum Length {
        case length(Int64)
        case conflicting(Int64, Int64)
        case tooLarge
        case invalid
    }

    /// `1*DIGIT`, or a comma-separated list of them that all agree (RFC 9110 §8.6; empty list
    /// elements are skipped, §5.6.1). Values past `Int64.max` (libcurl's `curl_off_t`) are too
    /// large: libcurl 7.88 would only note the overflow and read to the connection's close.
    private static func parseLength(_ value: UnsafeRawBufferPointer) -> Length {
        var result: Int64?
        var index = 0
        func skipWhitespace() {
            while index < value.count, value[index] == 0x20 || value[index] == 0x09 { index += 1 }
        }
        while true {
            skipWhitespace()
            guard index < value.count else { break }
            if value[index] == 0x2C {
                index += 1
                continue
            }
            guard value[index] >= 0x30, value[index] <= 0x39 else { return .invalid }
            var number: Int64 = 0
            while index < value.count, value[index] >= 0x30, value[index] <= 0x39 {
                let (times10, overflowed) = number.multipliedReportingOverflow(by: 10)
                let (sum, carried) = times10.addingReportingOverflow(Int64(value[index] - 0x30))
                if overflowed || carried {
                    // Still invalid if the rest is not digits: "invalid" beats "too large".
                    while index < value.count, value[index] >= 0x30, value[index] <= 0x39 { index += 1 }
                    skipWhitespace()
                    return index == value.count || value[index] == 0x2C ? .tooLarge : .invalid
                }
                number = sum
                index += 1
            }
            skipWhitespace()
            guard index == value.count || value[index] == 0x2C else { return .invalid }
            if let earlier = result, earlier != number { return .conflicting(earlier, number) }
            result = number
        }
        return result.map(Length.length) ?? .invalid
    }

    /// The server's bytes for a message: trimmed, at most 40 of them, anything but printable
    /// ASCII as "?" (CWE-117: a message or log line must not carry a server's control bytes).
    private static func quoted(_ value: UnsafeRawBufferPointer) -> String {
        var start = 0
        var end = value.count
        while start < end, value[start] == 0x20 || value[start] == 0x09 { start += 1 }
        while end > start, value[end - 1] == 0x20 || value[end - 1] == 0x09 { end -= 1 }
        let shown = value[start..<min(end, start + 40)].map {
            (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "?"
        }
        return String(shown) + (end - start > 40 ? "..." : "")
    }
}
