import Foundation

/// Reads HTTP/1.x requests off a ``Connection``: the head by scanning for the blank
/// line, then the body by `Content-Length` or chunked framing.
///
/// Deliberately strict where leniency would hide client bugs (bare LF line endings,
/// spaces in field names) and simple everywhere else.
enum RequestParser {
    /// Why a request could not be parsed. Each case maps to the error status sent back.
    enum Failure: Error, Equatable {
        /// Syntax error in the head or body framing: answered with 400.
        case malformed(String)
        /// The head exceeded ``maxHeadBytes``: answered with 431.
        case headTooLarge
        /// A protocol version other than HTTP/1.x: answered with 505.
        case unsupportedVersion(String)
    }

    /// The largest request head accepted (request line plus all headers).
    static let maxHeadBytes = 64 * 1024
    /// The longest chunk-size or trailer line accepted in a chunked body.
    static let maxChunkLineBytes = 8 * 1024

    /// Reads the next request head.
    ///
    /// - Returns: nil if the peer closed the connection between requests.
    /// - Throws: ``Failure`` for a bad head, ``Connection/Failure`` for I/O problems
    ///   (including EOF in the middle of a head).
    static func readHead(from connection: Connection) throws -> RequestHead? {
        var scanned = 0
        while true {
            // Tolerate empty lines before the request line (RFC 9112 §2.2); some clients
            // send a stray CRLF after a body.
            let leading = connection.withBufferedBytes { bytes in
                var count = 0
                while count + 1 < bytes.count, bytes[count] == 0x0D, bytes[count + 1] == 0x0A { count += 2 }
                return count
            }
            if leading > 0 {
                connection.consume(leading)
                scanned = 0
            }
            if let end = connection.withBufferedBytes({ findBlankLine(in: $0, from: scanned) }) {
                let head = try connection.withBufferedBytes {
                    try parseHead(UnsafeBufferPointer(rebasing: $0[0..<end]))
                }
                connection.consume(end + 4)
                return head
            }
            scanned = connection.bufferedCount
            if scanned >= maxHeadBytes { throw Failure.headTooLarge }
            if try !connection.fill(limit: maxHeadBytes + 4) {
                if connection.bufferedCount == 0 { return nil }
                throw Connection.Failure.unexpectedEOF
            }
        }
    }

    /// Reads the body the head announced.
    ///
    /// Chunked bodies are de-chunked; chunk extensions and trailer fields are read and
    /// discarded.
    static func readBody(framing: RequestHead.BodyFraming, from connection: Connection) throws -> Data {
        switch framing {
        case .none:
            return Data()
        case .length(let length):
            var body = Data(capacity: min(length, 16 << 20))
            try connection.read(exactly: length, appendingTo: &body)
            return body
        case .chunked:
            return try readChunkedBody(from: connection)
        }
    }

    private static func readChunkedBody(from connection: Connection) throws -> Data {
        var body = Data()
        while true {
            guard let line = try connection.readLine(maxLength: maxChunkLineBytes) else {
                throw Failure.malformed("chunk-size line too long")
            }
            let sizeText = line.prefix {
                $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t")
            }
            guard !sizeText.isEmpty, sizeText.count <= 15,
                let size = Int(String(decoding: sizeText, as: UTF8.self), radix: 16)
            else {
                throw Failure.malformed("bad chunk size")
            }
            if size == 0 { break }
            try connection.read(exactly: size, appendingTo: &body)
            guard let terminator = try connection.readLine(maxLength: 0), terminator.isEmpty else {
                throw Failure.malformed("chunk data not followed by CRLF")
            }
        }
        // Trailer section: header lines until an empty line. Ignored.
        while true {
            guard let line = try connection.readLine(maxLength: maxChunkLineBytes) else {
                throw Failure.malformed("trailer line too long")
            }
            if line.isEmpty { return body }
        }
    }

    /// The offset of the first CRLFCRLF at or after `start - 3`, if any.
    private static func findBlankLine(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = max(0, start - 3)
        let last = bytes.count - 4
        while index <= last {
            // Cheap check on the byte most likely to mismatch first.
            if bytes[index + 3] == 0x0A, bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Parses the head bytes (without the final CRLFCRLF).
    static func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) throws -> RequestHead {
        var lines: [UnsafeBufferPointer<UInt8>] = []
        var lineStart = 0
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A {
                lines.append(UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        lines.append(UnsafeBufferPointer(rebasing: bytes[lineStart..<bytes.count]))

        var head = try parseRequestLine(lines[0])
        head.headers.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            try parseField(line, into: &head.headers)
        }
        return head
    }

    private static func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) throws -> RequestHead {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw Failure.malformed("bad request line")
        }
        let version = decode(parts[2])
        guard version.hasPrefix("HTTP/") else { throw Failure.malformed("bad request line") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw Failure.unsupportedVersion(version) }
        return RequestHead(method: decode(parts[0]), target: decode(parts[1]), version: version, headers: [])
    }

    private static func parseField(_ line: UnsafeBufferPointer<UInt8>, into headers: inout [HeaderField]) throws {
        if let first = line.first, first == 0x20 || first == 0x09 {
            // Obsolete line folding: RFC 9112 §5.2 lets a server replace it with a space.
            guard let previous = headers.popLast() else { throw Failure.malformed("folded first header") }
            let continuation = decode(line[...]).trimmingCharacters(in: .whitespaces)
            headers.append(HeaderField(name: previous.name, value: previous.value + " " + continuation))
            return
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
            throw Failure.malformed("header line without a name")
        }
        let name = line[..<colon]
        guard !name.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw Failure.malformed("whitespace in header name")
        }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        headers.append(HeaderField(name: decode(name), value: decode(line[valueStart..<valueEnd])))
    }

    /// Decodes header bytes as UTF-8, falling back to ISO-8859-1 so that no byte a
    /// client sent is silently replaced.
    private static func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
