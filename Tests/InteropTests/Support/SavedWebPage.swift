import Foundation

/// What a page saved by WebPageRequest refers to, read with a few regular expressions rather
/// than the class's own libxml2 scanner (a test that read the output with the code that wrote it
/// would miss what both get wrong). libxml2 writes every attribute in double quotes, lowercase,
/// with `&`, `<`, `>` and `"` as entities, which is all these expressions rely on.
struct SavedWebPage {
    /// One URL the page names, as written (entities decoded).
    struct Reference: Equatable, CustomStringConvertible {
        /// The element (`img`, `link`…), or `url()` for one in a style element or attribute.
        var element: String
        /// The attribute (`src`, `srcset`…), or `url` for a `url()`.
        var attribute: String
        var value: String

        var description: String { "<\(element) \(attribute)=\(value.prefix(80))>" }
    }

    let text: String

    init(_ text: String) {
        self.text = text
    }

    /// The page as UTF-8.
    init(_ data: Data) {
        text = String(decoding: data, as: UTF8.self)
    }

    /// Every element with its attributes, in document order.
    var elements: [(name: String, attributes: [String: String])] {
        text.matches(of: #/<([a-zA-Z][a-zA-Z0-9]*)(\s[^>]*)?>/#).map { match in
            var attributes: [String: String] = [:]
            for attribute in String(match.output.2 ?? "").matches(of: #/([a-zA-Z-]+)="([^"]*)"/#) {
                attributes[attribute.output.1.lowercased()] = Self.decodingEntities(String(attribute.output.2))
            }
            return (match.output.1.lowercased(), attributes)
        }
    }

    /// The URLs of resources: `src`, `poster`, each `srcset` candidate, a stylesheet link's
    /// `href`, and every `url()` of the page's style elements and attributes; not `a href`, nor
    /// an icon's.
    var resourceReferences: [Reference] {
        var references: [Reference] = []
        for (name, attributes) in elements {
            for attribute in ["src", "poster"] {
                if let value = attributes[attribute] {
                    references.append(Reference(element: name, attribute: attribute, value: value))
                }
            }
            if let srcset = attributes["srcset"] {
                for candidate in Self.srcsetURLs(srcset) {
                    references.append(Reference(element: name, attribute: "srcset", value: candidate))
                }
            }
            if name == "link", let href = attributes["href"],
                (attributes["rel"] ?? "").lowercased().split(separator: " ").contains("stylesheet")
            {
                references.append(Reference(element: name, attribute: "href", value: href))
            }
        }
        return references
            + Self.cssURLs(in: Self.decodingEntities(text)).map {
                Reference(element: "url()", attribute: "url", value: $0)
            }
    }

    /// The `href` of every `a`.
    var linkHrefs: [String] {
        elements.filter { $0.name == "a" }.compactMap { $0.attributes["href"] }
    }

    /// Every `url(...)` in a stylesheet's text, unquoted, in order.
    static func cssURLs(in css: String) -> [String] {
        css.matches(of: #/url\(\s*(?:"([^"]*)"|'([^']*)'|([^'"\s)]*))\s*\)/#).map { match in
            String(match.output.1 ?? match.output.2 ?? match.output.3 ?? "")
        }
    }

    /// The data URIs of `type` in `text` (as `data:TYPE;base64,…`), decoded, in order.
    static func dataURIContents(ofType type: String, in text: String) -> [Data] {
        let prefix = "data:\(type);base64,"
        var contents: [Data] = []
        var rest = Substring(text)
        while let start = rest.range(of: prefix) {
            let base64 = rest[start.upperBound...].prefix { $0.isLetter || $0.isNumber || "+/=".contains($0) }
            contents.append(Data(base64Encoded: String(base64)) ?? Data("not base64: \(base64.prefix(40))".utf8))
            rest = rest[start.upperBound...].dropFirst(base64.count)
        }
        return contents
    }

    /// `data` as a `data:` URI of `type`, as WebPageRequest writes one.
    static func dataURI(_ data: Data, type: String) -> String {
        "data:\(type);base64,\(data.base64EncodedString())"
    }

    /// A `srcset`'s URLs as HTML splits them: a URL runs to white space (a data URI's comma is
    /// part of it), its descriptors to the next comma.
    static func srcsetURLs(_ srcset: String) -> [String] {
        var urls: [String] = []
        var rest = Substring(srcset)
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "," }
            guard !rest.isEmpty else { return urls }
            var url = rest.prefix { !$0.isWhitespace }
            rest = rest.dropFirst(url.count)
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url = url.dropLast() }
            } else {
                rest = rest.drop { $0 != "," }
            }
            urls.append(String(url))
        }
    }

    private static func decodingEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
