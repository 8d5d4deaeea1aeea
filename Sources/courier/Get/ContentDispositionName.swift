import Foundation

/// The file name a `Content-Disposition` header offers (`--content-disposition`), made safe to
/// use inside the output folder, or nil when it offers none that is.
///
/// The server is not trusted: `filename="../../.bashrc"`, `filename="/etc/passwd"` and
/// `filename*=UTF-8''..%2F..%2Fx` must not leave the folder. Only the last path component is
/// kept (of "/" and "\\" alike), control characters become "_", and a name that is empty,
/// "." or "..", holds a NUL, or starts with a dot (a hidden file the user would not see) is
/// refused: the URL's name is used instead.
enum ContentDispositionName {
    static func fileName(from header: String?) -> String? {
        guard let header else { return nil }
        let parameters = Self.parameters(of: header)
        // RFC 6266: filename* (RFC 8187, percent-encoded UTF-8) wins over filename.
        let offered =
            parameters["filename*"].flatMap(Self.decodeExtended) ?? parameters["filename"]
        guard let offered else { return nil }
        return safeName(offered)
    }

    /// `offered` reduced to one safe file name, or nil.
    static func safeName(_ offered: String) -> String? {
        guard !offered.unicodeScalars.contains("\0") else { return nil }
        // Scalars, not Characters: "/" followed by a combining mark is one Character, not "/".
        let lastComponent =
            offered.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(Array.init) ?? []
        var name = String.UnicodeScalarView()
        for scalar in lastComponent {
            name.append(scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar)
        }
        let result = String(name).trimmingCharacters(in: .whitespaces)
        // The first byte: "." and a combining mark is one Character, yet still a hidden file.
        guard !result.isEmpty, result.utf8.first != UInt8(ascii: "."),
            result.utf8.count <= OutputFileNamer.maxNameBytes
        else { return nil }
        return result
    }

    /// The header's parameters by lowercased name: `attachment; filename="a b.txt"; size=3`.
    private static func parameters(of header: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(header)
        // The disposition type comes first.
        guard let firstSemicolon = rest.firstIndex(of: ";") else { return [:] }
        rest = rest[rest.index(after: firstSemicolon)...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[rest.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            var value = ""
            if rest.first == "\"" {
                // A quoted-string: backslash escapes the next character.
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.popFirst() {
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        break
                    } else {
                        value.append(character)
                    }
                }
            } else {
                let end = rest.firstIndex(of: ";") ?? rest.endIndex
                value = rest[..<end].trimmingCharacters(in: .whitespaces)
                rest = rest[end...]
            }
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    /// `UTF-8''na%C3%AFve.txt` → "naïve.txt"; other charsets than UTF-8 and ISO-8859-1 are refused.
    private static func decodeExtended(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        let charset = pieces[0].lowercased()
        let encoded = String(pieces[2])
        if charset == "utf-8" { return encoded.removingPercentEncoding }
        guard charset == "iso-8859-1" else { return nil }
        var bytes: [UInt8] = []
        var index = encoded.utf8.startIndex
        let utf8 = encoded.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
                let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
                let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                index = utf8.index(after: low)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(bytes: bytes, encoding: .isoLatin1)
    }
}
