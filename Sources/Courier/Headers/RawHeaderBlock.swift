import Glibc

/// A response's header fields as they arrived: "Name: value" lines, kept as bytes and turned
/// into `HTTPHeaders` only when someone asks. Most responses are only ever asked for a few
/// fields (Content-Length, Location, Content-Encoding), which `value(of:)` finds by scanning.
struct RawHeaderBlock: Sendable, Hashable {
    /// Lines without their CRLF, each ending in a 0x0A separator (folded lines already joined).
    private(set) var bytes: [UInt8] = []
    /// Room reserved at the first field: the header block of a small nginx response is ~250 bytes.
    private static let typicalSize = 512

    /// Room for a typical response's fields, made ahead by the thread that will free it.
    mutating func reserveTypicalCapacity() {
        bytes.reserveCapacity(Self.typicalSize)
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// Appends one field line ("Name: value").
    mutating func append(_ line: UnsafeRawBufferPointer) {
        // One allocation holds a typical response's fields, instead of regrowing line by line.
        if bytes.capacity == 0 { reserveTypicalCapacity() }
        // As typed bytes the copy is one memcpy; a raw buffer is copied byte by byte.
        bytes.append(contentsOf: line.assumingMemoryBound(to: UInt8.self))
        bytes.append(0x0A)
    }

    /// Appends a folded continuation to the last line, joined with a space.
    mutating func appendContinuation(_ line: UnsafeRawBufferPointer) {
        guard bytes.last == 0x0A else { return }
        bytes.removeLast()
        bytes.append(0x20)
        var start = 0
        while start < line.count, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[start...]))
        bytes.append(0x0A)
    }

    /// The value of the first field with this name (ASCII case-insensitive), trimmed.
    func value(of name: String) -> String? {
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                var lineStart = 0
                while lineStart < all.count {
                    let lineEnd = Self.endOfLine(in: all, from: lineStart)
                    if let value = Self.value(in: all, from: lineStart, to: lineEnd, named: wanted) { return value }
                    lineStart = lineEnd + 1
                }
                return nil
            }
        }
    }

    /// The values of every field with this name (ASCII case-insensitive), trimmed, in order: for
    /// list fields a server may split over several lines (Content-Encoding).
    func values(of name: String) -> [String] {
        var name = name
        return name.withUTF8 { wanted in
            bytes.withUnsafeBufferPointer { all in
                var values: [String] = []
                var lineStart = 0
                while lineStart < all.count {
                    let lineEnd = Self.endOfLine(in: all, from: lineStart)
                    if let value = Self.value(in: all, from: lineStart, to: lineEnd, named: wanted) {
                        values.append(value)
                    }
                    lineStart = lineEnd + 1
                }
                return values
            }
        }
    }

    /// Every field, in order, repeats joined as `HTTPHeaders` joins them.
    func parsed() -> HTTPHeaders {
        var headers = HTTPHeaders()
        bytes.withUnsafeBufferPointer { all in
            var lineStart = 0
            while lineStart < all.count {
                let lineEnd = Self.endOfLine(in: all, from: lineStart)
                if let field = Self.field(in: all, from: lineStart, to: lineEnd) {
                    headers.add(name: field.name, value: field.value)
                }
                lineStart = lineEnd + 1
            }
        }
        return headers
    }

    private static func field(
        in all: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> (name: String, value: String)? {
        var colon = start
        while colon < end, all[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < end else { return nil }
        let (valueStart, valueEnd) = trimmed(all, colon + 1, end)
        return (
            String(decoding: UnsafeBufferPointer(rebasing: all[start..<colon]), as: UTF8.self),
            String(decoding: UnsafeBufferPointer(rebasing: all[valueStart..<valueEnd]), as: UTF8.self)
        )
    }

    private static func value(
        in all: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, named wanted: UnsafeBufferPointer<UInt8>
    ) -> String? {
        let colon = start + wanted.count
        guard colon < end, all[colon] == UInt8(ascii: ":") else { return nil }
        guard ASCIICase.equal(UnsafeBufferPointer(rebasing: all[start..<colon]), wanted) else { return nil }
        let (valueStart, valueEnd) = trimmed(all, colon + 1, end)
        return String(decoding: UnsafeBufferPointer(rebasing: all[valueStart..<valueEnd]), as: UTF8.self)
    }

    /// The index of the 0x0A that ends the line starting at `start` (memchr: every line ends in one).
    private static func endOfLine(in all: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let found = memchr(all.baseAddress! + start, 0x0A, all.count - start)!
        return all.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    private static func trimmed(_ all: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> (Int, Int) {
        var start = start
        var end = end
        while start < end, all[start] == 0x20 || all[start] == 0x09 { start += 1 }
        while end > start, all[end - 1] == 0x20 || all[end - 1] == 0x09 { end -= 1 }
        return (start, end)
    }
}

extension RawHeaderBlock {
    /// The block of `headers`, one "Name: value" line each (a response served from a cache).
    init(_ headers: HTTPHeaders) {
        self.init()
        for (name, value) in headers {
            var line = name + ": " + value
            line.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        }
    }
}
