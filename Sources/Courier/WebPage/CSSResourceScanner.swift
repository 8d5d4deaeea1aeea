/// The URLs a stylesheet refers to: `url(...)` in all three quotings (`url(a.png)`,
/// `url('a.png')`, `url("a.png")`) and `@import` in both forms (`@import url(x.css)` and
/// `@import "x.css"`: ASI missed the second), with the byte range each URL's text takes, so that
/// the sheet can be rewritten in place. Comments are skipped; `data:` URLs are left out.
enum CSSResourceScanner {
    /// A URL found in a stylesheet.
    struct Found: Sendable, Equatable {
        let reference: WebPageReference
        /// Where the URL's text is in the sheet's bytes (inside any quotes).
        let range: Range<Int>
    }

    static func scan(_ text: String) -> [Found] {
        scan(Array(text.utf8))
    }

    static func scan(_ bytes: [UInt8]) -> [Found] {
        var found: [Found] = []
        var index = 0
        let count = bytes.count
        func lowercased(_ byte: UInt8) -> UInt8 {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
        }
        func matches(_ word: StaticString, at position: Int) -> Bool {
            let length = word.utf8CodeUnitCount
            guard position + length <= count else { return false }
            return word.withUTF8Buffer { word in (0..<length).allSatisfy { lowercased(bytes[position + $0]) == word[$0] } }
        }
        func skipSpaces(_ position: inout Int) {
            while position < count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(bytes[position]) { position += 1 }
        }
        /// A quoted string from `position` (at its quote): its contents' range, and the index after it.
        func quoted(at position: Int) -> (Range<Int>, Int)? {
            let quote = bytes[position]
            var end = position + 1
            while end < count, bytes[end] != quote {
                if bytes[end] == 0x0A { return nil }  // an unterminated string ends at the line
                end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
            }
            guard end < count else { return nil }
            return ((position + 1)..<end, end + 1)
        }
        /// `url(` at `position`: the URL's range, and the index after the `)`.
        func url(at position: Int) -> (Range<Int>, Int)? {
            var inner = position + 4
            skipSpaces(&inner)
            guard inner < count else { return nil }
            if bytes[inner] == UInt8(ascii: "\"") || bytes[inner] == UInt8(ascii: "'") {
                guard let (range, after) = quoted(at: inner) else { return nil }
                var close = after
                skipSpaces(&close)
                guard close < count, bytes[close] == UInt8(ascii: ")") else { return nil }
                return (range, close + 1)
            }
            // An unquoted URL has no quote, `(`, control character or inner white space: CSS
            // reads `url(a b)` or `url(a"b)` as a bad URL, not a URL (and a rewrite of such a
            // range could change what the rest of the sheet means).
            var end = inner
            var last: Int?
            while end < count, bytes[end] != UInt8(ascii: ")") {
                let byte = bytes[end]
                if [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(byte) {
                    last = last ?? end
                } else if last != nil || byte == 0x22 || byte == 0x27 || byte == 0x28 || byte < 0x20 || byte == 0x7F {
                    return nil
                }
                end += byte == UInt8(ascii: "\\") ? escapeLength(at: end) : 1
            }
            guard end < count else { return nil }
            return (inner..<(last ?? end), end + 1)
        }
        /// The bytes an escape at `position` takes: `\` and a character, or `\`, up to six hex
        /// digits and one white space after them.
        func escapeLength(at position: Int) -> Int {
            var length = 1
            while length <= 6, position + length < count, isHexDigit(bytes[position + length]) { length += 1 }
            guard length > 1 else { return 2 }
            if position + length < count, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(bytes[position + length]) { length += 1 }
            return length
        }
        func add(_ range: Range<Int>, kind: WebPageReference.Kind) {
            let text = String(decoding: bytes[range], as: UTF8.self)
            let unescaped = unescape(text)
            guard !unescaped.isEmpty, !unescaped.lowercased().hasPrefix("data:") else { return }
            found.append(Found(reference: WebPageReference(kind: kind, url: unescaped), range: range))
        }
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/"), index + 1 < count, bytes[index + 1] == UInt8(ascii: "*") {
                var end = index + 2
                while end + 1 < count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                index = end + 2
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                // A string outside url() and @import (a `content:` value): not a URL.
                index = quoted(at: index)?.1 ?? index + 1
                continue
            }
            if byte == UInt8(ascii: "@"), matches("@import", at: index) {
                var position = index + 7
                skipSpaces(&position)
                if position < count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") {
                    if let (range, after) = quoted(at: position) {
                        add(range, kind: .stylesheet)
                        index = after
                        continue
                    }
                } else if matches("url(", at: position), let (range, after) = url(at: position) {
                    add(range, kind: .stylesheet)
                    index = after
                    continue
                }
                index = position
                continue
            }
            if (byte | 0x20) == UInt8(ascii: "u"), matches("url(", at: index),
                index == 0 || !isNameByte(bytes[index - 1]), let (range, after) = url(at: index)
            {
                add(range, kind: .image)
                index = after
                continue
            }
            index += 1
        }
        return found
    }

    /// The sheet with each found URL replaced by what `replacement` gives (nil: as written). A
    /// replacement is written so that it cannot end its `url()` or string: the characters that
    /// would (quotes, parentheses, backslash, white space) are percent-encoded, as a URL allows.
    static func rewrite(
        _ bytes: [UInt8], _ found: [Found], _ replacement: (WebPageReference) -> String?
    ) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for item in found {
            guard let text = replacement(item.reference) else { continue }
            output += bytes[copied..<item.range.lowerBound]
            for byte in text.utf8 {
                if byte <= 0x20 || byte == 0x22 || byte == 0x27 || byte == 0x28 || byte == 0x29 || byte == 0x5C {
                    let hex = Array("0123456789ABCDEF".utf8)
                    output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                } else {
                    output.append(byte)
                }
            }
            copied = item.range.upperBound
        }
        output += bytes[copied...]
        return output
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte >= 0x80
    }

    /// CSS's escapes in a URL: `\` before a character keeps the character; `\` and up to six hex
    /// digits (and one space after) is that code point.
    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var output = ""
        var characters = Array(text.unicodeScalars)[...]
        while let scalar = characters.popFirst() {
            guard scalar == "\\", let next = characters.first else {
                output.unicodeScalars.append(scalar)
                continue
            }
            var hex = ""
            while hex.count < 6, let digit = characters.first, digit.properties.isASCIIHexDigit {
                hex.unicodeScalars.append(digit)
                characters.removeFirst()
            }
            if hex.isEmpty {
                output.unicodeScalars.append(next)
                characters.removeFirst()
            } else {
                if characters.first == " " { characters.removeFirst() }
                if let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value), value != 0 {
                    output.unicodeScalars.append(decoded)
                } else {
                    output.unicodeScalars.append("\u{FFFD}")
                }
            }
        }
        return output
    }
}
