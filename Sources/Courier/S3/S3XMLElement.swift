import struct Foundation.Data

/// An element of the small XML documents S3 answers with (`ListBucketResult`, `Error`,
/// `InitiateMultipartUploadResult`, …): its name, its text and its child elements.
///
/// A reader of its own rather than FoundationXML: S3's documents are plain elements and text, and
/// this one knows no DTD, so it expands no entity but the five predefined and character
/// references (a hostile server's "billion laughs" has nothing to grow), and needs no libxml2.
struct S3XMLElement: Sendable, Equatable {
    var name: String
    var text = ""
    var children: [S3XMLElement] = []

    /// The text of the first child named `name`.
    func text(_ name: String) -> String? {
        children.first { $0.name == name }?.text
    }

    /// The first child named `name`.
    func child(_ name: String) -> S3XMLElement? {
        children.first { $0.name == name }
    }

    /// Every child named `name`, in order.
    func children(_ name: String) -> [S3XMLElement] {
        children.filter { $0.name == name }
    }

    /// Why a document could not be read.
    struct Malformed: Error, Equatable, CustomStringConvertible {
        let reason: String
        let offset: Int
        var description: String { "malformed XML at byte \(offset): \(reason)" }
    }

    /// The document's root element. Namespaces are kept out of names (`<ListBucketResult
    /// xmlns="…">` is `ListBucketResult`); the declaration, comments and processing instructions
    /// are skipped; CDATA is text.
    static func parse(_ bytes: some Collection<UInt8>) throws(Malformed) -> S3XMLElement {
        var reader = Reader(bytes: Array(bytes))
        return try reader.document()
    }

    /// Deeper than any S3 document nests: a hostile one cannot exhaust the stack.
    static let maximumDepth = 64

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func document() throws(Malformed) -> S3XMLElement {
            var stack: [S3XMLElement] = []
            var root: S3XMLElement?
            while index < bytes.count {
                if bytes[index] != UInt8(ascii: "<") {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                    let text = try decode(bytes[start..<index])
                    if !stack.isEmpty {
                        stack[stack.count - 1].text += text
                    } else if !text.allSatisfy(\.isWhitespace) {
                        throw fail("text outside the root element")
                    }
                    continue
                }
                if starts(with: "<?") {
                    try skip(past: "?>")
                } else if starts(with: "<!--") {
                    try skip(past: "-->")
                } else if starts(with: "<![CDATA[") {
                    index += 9
                    let start = index
                    try skip(past: "]]>")
                    guard !stack.isEmpty else { throw fail("CDATA outside the root element") }
                    stack[stack.count - 1].text += String(decoding: bytes[start..<(index - 3)], as: UTF8.self)
                } else if starts(with: "<!") {
                    throw fail("a document type declaration")
                } else if starts(with: "</") {
                    index += 2
                    let name = localName(readName())
                    skipSpaces()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw fail("an unclosed end tag") }
                    index += 1
                    guard let element = stack.popLast(), element.name == name else {
                        throw fail("an end tag </\(name)> that closes nothing open")
                    }
                    if stack.isEmpty {
                        guard root == nil else { throw fail("a second root element") }
                        root = element
                    } else {
                        stack[stack.count - 1].children.append(element)
                    }
                } else {
                    index += 1
                    let name = localName(readName())
                    guard !name.isEmpty else { throw fail("a tag without a name") }
                    // Attributes (a namespace, at most) are skipped, quoted values and all.
                    var selfClosing = false
                    while true {
                        guard index < bytes.count else { throw fail("an unclosed tag") }
                        let byte = bytes[index]
                        if byte == UInt8(ascii: ">") {
                            index += 1
                            break
                        }
                        if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: ">") {
                            index += 2
                            selfClosing = true
                            break
                        }
                        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                            index += 1
                            while index < bytes.count, bytes[index] != byte { index += 1 }
                        }
                        index += 1
                    }
                    let element = S3XMLElement(name: name)
                    if selfClosing {
                        if stack.isEmpty {
                            guard root == nil else { throw fail("a second root element") }
                            root = element
                        } else {
                            stack[stack.count - 1].children.append(element)
                        }
                    } else {
                        guard stack.count < S3XMLElement.maximumDepth else { throw fail("elements nested too deep") }
                        stack.append(element)
                    }
                }
            }
            guard stack.isEmpty else { throw fail("<\(stack.last!.name)> is never closed") }
            guard let root else { throw fail("no root element") }
            return root
        }

        private func starts(with text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return text.withUTF8Buffer { prefix in
                (0..<count).allSatisfy { bytes[index + $0] == prefix[$0] }
            }
        }

        private mutating func skip(past end: StaticString) throws(Malformed) {
            while index < bytes.count {
                if starts(with: end) {
                    index += end.utf8CodeUnitCount
                    return
                }
                index += 1
            }
            throw fail("\(end) never comes")
        }

        private mutating func skipSpaces() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func readName() -> String {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ">")
                    || byte == UInt8(ascii: "/")
                {
                    break
                }
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        private func localName(_ name: String) -> String {
            guard let colon = name.lastIndex(of: ":") else { return name }
            return String(name[name.index(after: colon)...])
        }

        /// Text with its entity and character references replaced.
        private func decode(_ text: ArraySlice<UInt8>) throws(Malformed) -> String {
            guard text.contains(UInt8(ascii: "&")) else { return String(decoding: text, as: UTF8.self) }
            var output: [UInt8] = []
            output.reserveCapacity(text.count)
            var position = text.startIndex
            while position < text.endIndex {
                let byte = text[position]
                guard byte == UInt8(ascii: "&") else {
                    output.append(byte)
                    position += 1
                    continue
                }
                guard let semicolon = text[position...].firstIndex(of: UInt8(ascii: ";")),
                    semicolon - position <= 12
                else { throw fail("an unterminated reference") }
                let name = String(decoding: text[(position + 1)..<semicolon], as: UTF8.self)
                switch name {
                case "amp": output.append(UInt8(ascii: "&"))
                case "lt": output.append(UInt8(ascii: "<"))
                case "gt": output.append(UInt8(ascii: ">"))
                case "quot": output.append(UInt8(ascii: "\""))
                case "apos": output.append(UInt8(ascii: "'"))
                default:
                    let scalarValue: UInt32?
                    if name.hasPrefix("#x") || name.hasPrefix("#X") {
                        scalarValue = UInt32(name.dropFirst(2), radix: 16)
                    } else if name.hasPrefix("#") {
                        scalarValue = UInt32(name.dropFirst(1))
                    } else {
                        scalarValue = nil
                    }
                    guard let scalarValue, let scalar = Unicode.Scalar(scalarValue) else {
                        throw fail("an unknown reference &\(name);")
                    }
                    output.append(contentsOf: Array(String(Character(scalar)).utf8))
                }
                position = semicolon + 1
            }
            return String(decoding: output, as: UTF8.self)
        }

        private func fail(_ reason: String) -> Malformed {
            Malformed(reason: reason, offset: index)
        }
    }
}
