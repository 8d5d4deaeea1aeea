import CLibXML2

import struct Foundation.Data

/// What a page refers to, read with libxml2's HTML parser: tag soup (any case, unclosed elements,
/// attributes without quotes) as browsers read it, with networking off. The resources
/// WebPageRequest fetches, in document order (duplicates kept: the caller fetches each once), and
/// the page's `<base href>`.
///
/// Fetched (API.md): `link rel=stylesheet href` (the token among others, any case), `script src`,
/// `img src` and `srcset`, `frame`/`iframe src`, what `style` elements and `style=` attributes
/// name (`CSSResourceScanner`), `source src`/`srcset`, `video src`/`poster`, `audio src`. Never:
/// `a href`, icons, `data:` URIs.
struct HTMLResourceScanner {
    /// What a page refers to.
    struct Scan: Sendable, Equatable {
        var references: [WebPageReference] = []
        /// The first `<base href>`, as written.
        var baseHref: String?
    }

    /// Reads `html`, in `encoding` (an IANA name from the response's Content-Type) or, when nil,
    /// as libxml2 finds it: a byte-order mark, then `<meta charset>` or `http-equiv`, then
    /// ISO-8859-1.
    static func scan(_ html: Data, encoding: String? = nil) -> Scan {
        initializeOnce
        // HUGE lifts libxml2's nesting limit of 256 elements (real pages nest deeper; past the
        // limit the parser stopped, the page's rest unread). The body's size is bounded by the
        // response's, and the tree is walked without recursion.
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | UInt32(XML_PARSE_HUGE.rawValue))
        let document = html.withUnsafeBytes { bytes -> htmlDocPtr? in
            guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(Int32.max) else { return nil }
            return htmlReadMemory(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, encoding, options)
        }
        guard let document else { return Scan() }
        defer { xmlFreeDoc(document) }
        var scan = Scan()
        walk(xmlDocGetRootElement(document), into: &scan)
        return scan
    }

    /// libxml2 sets up its globals once per process; after that its parser may run on any thread.
    private static let initializeOnce: Void = xmlInitParser()

    /// The element and every element under it, in document order, without recursion (a page of
    /// 100,000 nested tags must not exhaust the stack).
    private static func walk(_ root: xmlNodePtr?, into scan: inout Scan) {
        var node = root
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE { visit(current, into: &scan) }
            if let child = current.pointee.children, current.pointee.type == XML_ELEMENT_NODE {
                node = child
                continue
            }
            var next: xmlNodePtr? = current
            while let candidate = next, candidate != root, candidate.pointee.next == nil { next = candidate.pointee.parent }
            guard let candidate = next, candidate != root else { return }
            node = candidate.pointee.next
        }
    }

    private static func visit(_ element: xmlNodePtr, into scan: inout Scan) {
        let name = string(element.pointee.name).lowercased()
        if let style = attribute("style", of: element) { addCSS(style, to: &scan) }
        switch name {
        case "link":
            let rel = (attribute("rel", of: element) ?? "").lowercased()
            if rel.split(whereSeparator: \.isWhitespace).contains("stylesheet") {
                add(attribute("href", of: element), .stylesheet, to: &scan)
            }
        case "script":
            add(attribute("src", of: element), .script, to: &scan)
        case "img":
            add(attribute("src", of: element), .image, to: &scan)
            for url in srcsetURLs(attribute("srcset", of: element)) { add(url, .image, to: &scan) }
        case "frame", "iframe":
            add(attribute("src", of: element), .frame, to: &scan)
        case "style":
            addCSS(text(of: element), to: &scan)
        case "source":
            add(attribute("src", of: element), .media, to: &scan)
            for url in srcsetURLs(attribute("srcset", of: element)) { add(url, .image, to: &scan) }
        case "video":
            add(attribute("src", of: element), .media, to: &scan)
            add(attribute("poster", of: element), .image, to: &scan)
        case "audio":
            add(attribute("src", of: element), .media, to: &scan)
        case "base":
            if scan.baseHref == nil, let href = attribute("href", of: element) { scan.baseHref = trimmed(href) }
        default:
            break
        }
    }

    private static func add(_ url: String?, _ kind: WebPageReference.Kind, to scan: inout Scan) {
        guard let url = url.map(trimmed), !url.isEmpty, !url.lowercased().hasPrefix("data:") else { return }
        scan.references.append(WebPageReference(kind: kind, url: url))
    }

    private static func addCSS(_ css: String, to scan: inout Scan) {
        scan.references += CSSResourceScanner.scan(css).map(\.reference)
    }

    /// The URLs of a `srcset` ("a.png 1x, b.png 2x"), as HTML's algorithm splits it: a URL runs
    /// to the next space (a comma at its end is no part of it), and its descriptors to the next comma.
    static func srcsetURLs(_ srcset: String?) -> [String] {
        guard let srcset else { return [] }
        var urls: [String] = []
        var characters = Substring(srcset)
        while true {
            characters = characters.drop { $0.isWhitespace || $0 == "," }
            guard !characters.isEmpty else { return urls }
            var url = characters.prefix { !$0.isWhitespace }
            characters = characters.dropFirst(url.count)
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url = url.dropLast() }
            } else {
                // The descriptors, up to the comma that ends the candidate (parentheses aside).
                var depth = 0
                while let character = characters.first {
                    if character == "(" { depth += 1 }
                    if character == ")" { depth = max(0, depth - 1) }
                    if character == ",", depth == 0 { break }
                    characters = characters.dropFirst()
                }
            }
            if !url.isEmpty { urls.append(String(url)) }
        }
    }

    /// An attribute's value, entities decoded, or nil when the element has none.
    private static func attribute(_ name: String, of element: xmlNodePtr) -> String? {
        var property = element.pointee.properties
        while let current = property {
            if string(current.pointee.name).lowercased() == name {
                var value = ""
                var child = current.pointee.children
                while let node = child {
                    value += string(node.pointee.content)
                    child = node.pointee.next
                }
                return value
            }
            property = current.pointee.next
        }
        return nil
    }

    /// The text directly inside an element (a `style` element's sheet).
    private static func text(of element: xmlNodePtr) -> String {
        var text = ""
        var child = element.pointee.children
        while let node = child {
            if node.pointee.type == XML_TEXT_NODE || node.pointee.type == XML_CDATA_SECTION_NODE {
                text += string(node.pointee.content)
            }
            child = node.pointee.next
        }
        return text
    }

    private static func string(_ characters: UnsafePointer<xmlChar>?) -> String {
        guard let characters else { return "" }
        return String(cString: characters)
    }

    private static func trimmed(_ text: String) -> String {
        let isSpace = { (character: Character) in character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\u{0C}" }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
