import CLibXML2

import struct Foundation.Data

/// What a page refers to, read with libxml2's HTML parser: tag soup (any case, unclosed elements,
/// attributes without quotes) as browsers read it, with networking off. `scan` lists the
/// resources WebPageRequest fetches, in document order (duplicates kept: the caller fetches each
/// once); `rewrite` walks the same elements by the same rules and replaces their URLs.
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
        /// The charset the page names in `<meta charset>` or `<meta http-equiv=Content-Type>`.
        var declaredCharset: String?
    }

    /// What replaces the URLs in a page.
    struct Rewrite {
        /// A resource's new URL, or nil to leave it as written.
        var resource: (WebPageReference) -> String?
        /// An `a href`'s new URL (made absolute), or nil to leave it.
        var link: (String) -> String?
        /// Drops `<base href>`: the page's URLs no longer point where it said.
        var removesBase: Bool
        /// The charset the page is written in (`rewrite` sets its output encoding): a `<meta>`
        /// naming another is made to name this one, since a saved copy has no Content-Type
        /// header to overrule it (a header's Latin-1 over a `<meta charset="utf-8">` would
        /// otherwise be read back as UTF-8).
        var charset: String? = nil
    }

    /// Reads `html`, in `encoding` (an IANA name from the response's Content-Type) or, when nil,
    /// as libxml2 finds it: a byte-order mark, then `<meta charset>` or `http-equiv`, then
    /// ISO-8859-1.
    static func scan(_ html: Data, encoding: String? = nil) -> Scan {
        var scan = Scan()
        _ = withDocument(html, encoding: encoding) { document in
            walk(xmlDocGetRootElement(document), in: document, scan: &scan, rewrite: nil)
        }
        return scan
    }

    /// The page with its URLs replaced, written in `outputEncoding` (an IANA name libxml2 knows)
    /// after `prefix` (a byte-order mark, or nothing); nil when libxml2 cannot write that encoding.
    /// No XML declaration and no DOCTYPE are added; text libxml2 cannot write in the encoding
    /// becomes character references.
    static func rewrite(
        _ html: Data, encoding: String?, outputEncoding: String, prefix: [UInt8] = [], _ rewrite: Rewrite
    ) -> Data? {
        var rewrite = rewrite
        rewrite.charset = outputEncoding
        return withDocument(html, encoding: encoding) { document -> Data? in
            var scan = Scan()
            walk(xmlDocGetRootElement(document), in: document, scan: &scan, rewrite: rewrite)
            // A page that names no charset got it from the header (or the default), which a saved
            // copy does not have: it says it in a `<meta>`. A byte-order mark says it already.
            if scan.declaredCharset == nil, prefix.isEmpty, !outputEncoding.lowercased().hasPrefix("utf-16") {
                declare(outputEncoding, in: document)
            }
            guard let handler = xmlFindCharEncodingHandler(outputEncoding), let output = xmlAllocOutputBuffer(handler)
            else { return nil }
            htmlDocContentDumpFormatOutput(output, document, nil, 0)
            xmlOutputBufferFlush(output)
            defer { xmlOutputBufferClose(output) }
            // With an encoder the written bytes are in `conv`; `buffer` holds them in UTF-8.
            guard let written = output.pointee.conv ?? output.pointee.buffer, let bytes = xmlBufContent(written) else {
                return Data(prefix)
            }
            return Data(prefix) + Data(bytes: bytes, count: xmlBufUse(written))
        } ?? nil
    }

    /// Adds `<meta charset>` as the first element of the page's `<head>` (made, first in
    /// `<html>`, when the page has none).
    private static func declare(_ charset: String, in document: htmlDocPtr) {
        guard let root = xmlDocGetRootElement(document), string(root.pointee.name).lowercased() == "html" else { return }
        var head: xmlNodePtr?
        var child = root.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE, string(node.pointee.name).lowercased() == "head" {
                head = node
                break
            }
            child = node.pointee.next
        }
        if head == nil {
            guard let made = xmlNewDocNode(document, nil, "head", nil) else { return }
            head = root.pointee.children.map { xmlAddPrevSibling($0, made) } ?? xmlAddChild(root, made)
        }
        guard let head, let meta = xmlNewDocNode(document, nil, "meta", nil) else { return }
        xmlNewProp(meta, "charset", charset)
        if let first = head.pointee.children { xmlAddPrevSibling(first, meta) } else { xmlAddChild(head, meta) }
    }

    private static func withDocument<Result>(
        _ html: Data, encoding: String?, _ body: (htmlDocPtr) -> Result
    ) -> Result? {
        initializeOnce
        let document = html.withUnsafeBytes { bytes -> htmlDocPtr? in
            guard let base = bytes.baseAddress, bytes.count > 0, bytes.count <= Int(Int32.max) else { return nil }
            return htmlReadMemory(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, encoding, options)
        }
        guard let document else { return nil }
        defer { xmlFreeDoc(document) }
        return body(document)
    }

    /// HUGE lifts libxml2's nesting limit of 256 elements (real pages nest deeper; past the limit
    /// the parser stopped, the page's rest unread). The body's size is bounded by the response's,
    /// and the tree is walked without recursion. NODEFDTD: libxml2 would otherwise give a page
    /// without a DOCTYPE an HTML 4 one, which puts browsers in another mode. (NOIMPLIED, which
    /// would also keep out the `<html>` and `<body>` libxml2 adds, leaves a tree of several roots
    /// that libxml2 2.9's writer stops after the first of.)
    private static let options = Int32(
        HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_NODEFDTD.rawValue | UInt32(XML_PARSE_HUGE.rawValue))

    /// libxml2 sets up its globals once per process; after that its parser may run on any thread.
    private static let initializeOnce: Void = xmlInitParser()

    /// Every element from `root` on (its following siblings too: without implied elements a page
    /// may have several top-level ones), in document order, without recursion (a page of 100,000
    /// nested tags must not exhaust the stack).
    private static func walk(_ root: xmlNodePtr?, in document: htmlDocPtr, scan: inout Scan, rewrite: Rewrite?) {
        var node = root
        while let current = node {
            if current.pointee.type == XML_ELEMENT_NODE { visit(current, in: document, scan: &scan, rewrite: rewrite) }
            if let child = current.pointee.children, current.pointee.type == XML_ELEMENT_NODE {
                node = child
                continue
            }
            var next: xmlNodePtr? = current
            while let candidate = next, candidate.pointee.next == nil {
                next = candidate.pointee.parent
                if next.map({ UnsafeMutableRawPointer($0) == UnsafeMutableRawPointer(document) }) ?? true { return }
            }
            node = next?.pointee.next
        }
    }

    private static func visit(_ element: xmlNodePtr, in document: htmlDocPtr, scan: inout Scan, rewrite: Rewrite?) {
        let name = string(element.pointee.name).lowercased()
        let place = Place(element: element, scan: scan, rewrite: rewrite)
        defer { scan = place.scan }
        place.css(attribute: "style")
        switch name {
        case "link":
            let rel = (place.value("rel") ?? "").lowercased()
            if rel.split(whereSeparator: \.isWhitespace).contains("stylesheet") { place.url("href", .stylesheet) }
        case "script":
            place.url("src", .script)
        case "img":
            place.url("src", .image)
            place.srcset("srcset")
        case "frame", "iframe":
            place.url("src", .frame)
        case "style":
            place.cssText()
        case "source":
            place.url("src", .media)
            place.srcset("srcset")
        case "video":
            place.url("src", .media)
            place.url("poster", .image)
        case "audio":
            place.url("src", .media)
        case "a":
            place.link("href")
        case "base":
            if place.scan.baseHref == nil, let href = place.value("href") { place.scan.baseHref = trimmed(href) }
            if rewrite?.removesBase == true { xmlUnsetProp(element, "href") }
        case "meta":
            if place.scan.declaredCharset == nil { place.scan.declaredCharset = declaredCharset(place) }
            if let charset = rewrite?.charset { place.declare(charset) }
        default:
            break
        }
    }

    private static func declaredCharset(_ place: Place) -> String? {
        if let charset = place.value("charset").map(trimmed), !charset.isEmpty { return charset }
        guard place.value("http-equiv").map(trimmed)?.lowercased() == "content-type", let content = place.value("content")
        else { return nil }
        return ContentType.charset(in: content)
    }

    /// One element's URL-bearing attributes: each URL is recorded, and replaced when rewriting.
    private final class Place {
        let element: xmlNodePtr
        var scan: Scan
        let rewrite: Rewrite?

        init(element: xmlNodePtr, scan: Scan, rewrite: Rewrite?) {
            self.element = element
            self.scan = scan
            self.rewrite = rewrite
        }

        func value(_ name: String) -> String? { attribute(name, of: element)?.value }

        func url(_ name: String, _ kind: WebPageReference.Kind) {
            guard let (attributeName, value) = attribute(name, of: element),
                let reference = reference(value, kind)
            else { return }
            scan.references.append(reference)
            if let replacement = rewrite?.resource(reference) { xmlSetProp(element, attributeName, replacement) }
        }

        func srcset(_ name: String) {
            guard let (attributeName, value) = attribute(name, of: element) else { return }
            var changed = false
            let candidates = HTMLResourceScanner.srcsetCandidates(value).map { candidate -> (String, String) in
                guard let reference = reference(candidate.url, .image) else { return (candidate.url, candidate.descriptors) }
                scan.references.append(reference)
                guard let replacement = rewrite?.resource(reference) else { return (candidate.url, candidate.descriptors) }
                changed = true
                return (replacement, candidate.descriptors)
            }
            guard changed else { return }
            let rewritten = candidates.map { $0.1.isEmpty ? $0.0 : $0.0 + " " + $0.1 }.joined(separator: ", ")
            xmlSetProp(element, attributeName, rewritten)
        }

        func link(_ name: String) {
            guard let rewrite, let (attributeName, value) = attribute(name, of: element),
                let replacement = rewrite.link(trimmed(value))
            else { return }
            xmlSetProp(element, attributeName, replacement)
        }

        /// A `<meta charset>` or `http-equiv=Content-Type` that names another charset than
        /// `charset` names it instead.
        func declare(_ charset: String) {
            func isSame(_ declared: String) -> Bool {
                guard let encoding = String.Encoding(ianaCharsetName: declared) else {
                    return trimmed(declared).lowercased() == charset.lowercased()
                }
                return encoding == String.Encoding(ianaCharsetName: charset)
            }
            if let (name, declared) = attribute("charset", of: element), !trimmed(declared).isEmpty {
                if !isSame(declared) { xmlSetProp(element, name, charset) }
            } else if value("http-equiv").map(trimmed)?.lowercased() == "content-type",
                let (name, content) = attribute("content", of: element),
                let declared = ContentType.charset(in: content),
                !isSame(declared)
            {
                xmlSetProp(element, name, "text/html; charset=" + charset)
            }
        }

        func css(attribute name: String) {
            guard let (attributeName, value) = attribute(name, of: element) else { return }
            if let rewritten = css(value) { xmlSetProp(element, attributeName, rewritten) }
        }

        /// A `style` element's sheet: its text children, rewritten as one.
        func cssText() {
            var texts: [xmlNodePtr] = []
            var child = element.pointee.children
            while let node = child {
                if node.pointee.type == XML_TEXT_NODE || node.pointee.type == XML_CDATA_SECTION_NODE { texts.append(node) }
                child = node.pointee.next
            }
            let sheet = texts.map { string($0.pointee.content) }.joined()
            guard let rewritten = css(sheet), let first = texts.first else { return }
            xmlNodeSetContent(first, rewritten)
            for extra in texts.dropFirst() {
                xmlUnlinkNode(extra)
                xmlFreeNode(extra)
            }
        }

        /// Records a sheet's URLs; the rewritten sheet when any was replaced.
        private func css(_ sheet: String) -> String? {
            let bytes = Array(sheet.utf8)
            let found = CSSResourceScanner.scan(bytes)
            scan.references += found.map(\.reference)
            guard let rewrite else { return nil }
            let rewritten = CSSResourceScanner.rewrite(bytes, found, rewrite.resource)
            return rewritten == bytes ? nil : String(decoding: rewritten, as: UTF8.self)
        }

        private func reference(_ url: String, _ kind: WebPageReference.Kind) -> WebPageReference? {
            let url = trimmed(url)
            guard !url.isEmpty, !url.lowercased().hasPrefix("data:") else { return nil }
            return WebPageReference(kind: kind, url: url)
        }
    }

    /// The URLs of a `srcset` ("a.png 1x, b.png 2x").
    static func srcsetURLs(_ srcset: String?) -> [String] {
        srcsetCandidates(srcset ?? "").map(\.url)
    }

    /// A `srcset`'s candidates, as HTML's algorithm splits them: a URL runs to the next space (a
    /// comma at its end is no part of it), and its descriptors to the next comma.
    static func srcsetCandidates(_ srcset: String) -> [(url: String, descriptors: String)] {
        var candidates: [(url: String, descriptors: String)] = []
        var characters = Substring(srcset)
        while true {
            characters = characters.drop { $0.isWhitespace || $0 == "," }
            guard !characters.isEmpty else { return candidates }
            var url = characters.prefix { !$0.isWhitespace }
            characters = characters.dropFirst(url.count)
            var descriptors = Substring()
            if url.hasSuffix(",") {
                while url.hasSuffix(",") { url = url.dropLast() }
            } else {
                // The descriptors, up to the comma that ends the candidate (parentheses aside).
                var depth = 0
                let start = characters.startIndex
                while let character = characters.first {
                    if character == "(" { depth += 1 }
                    if character == ")" { depth = max(0, depth - 1) }
                    if character == ",", depth == 0 { break }
                    characters = characters.dropFirst()
                }
                descriptors = srcset[start..<characters.startIndex]
            }
            if !url.isEmpty { candidates.append((String(url), trimmed(String(descriptors)))) }
        }
    }

    /// An attribute's name as the tree spells it and its value, entities decoded, or nil when the
    /// element has none.
    private static func attribute(_ name: String, of element: xmlNodePtr) -> (name: UnsafePointer<xmlChar>, value: String)? {
        var property = element.pointee.properties
        while let current = property {
            if let attributeName = current.pointee.name, string(attributeName).lowercased() == name {
                var value = ""
                var child = current.pointee.children
                while let node = child {
                    value += string(node.pointee.content)
                    child = node.pointee.next
                }
                return (attributeName, value)
            }
            property = current.pointee.next
        }
        return nil
    }

    private static func string(_ characters: UnsafePointer<xmlChar>?) -> String {
        guard let characters else { return "" }
        return String(cString: characters)
    }

    static func trimmed(_ text: String) -> String {
        let isSpace = { (character: Character) in
            character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\u{0C}"
        }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
