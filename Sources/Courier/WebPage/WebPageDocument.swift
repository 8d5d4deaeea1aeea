import Foundation

/// A page or a stylesheet of a web page's tree, read: where its URLs resolve, which resources it
/// names, and how to write it back with those URLs replaced.
struct WebPageDocument: Sendable {
    enum Format: Sendable, Equatable {
        case html(WebPageEncoding)
        case css
    }

    let format: Format
    /// The document as it arrived (inflated).
    let bytes: Data
    /// What its relative URLs resolve against: `<base href>` (itself resolved against the
    /// document's URL), else the document's final URL after redirects.
    let base: URL
    /// The resources it names, resolved, in document order (duplicates kept).
    let references: [(url: URL, kind: WebPageReference.Kind)]

    /// Reads `bytes` as HTML or CSS by `contentType` (or, for a stylesheet a server gave no
    /// usable type, by how it was linked); nil for anything else (an image, a script).
    static func read(
        _ bytes: Data, contentType: String?, url: URL, linkedAs kind: WebPageReference.Kind?,
        defaultEncoding: String.Encoding
    ) -> WebPageDocument? {
        let mimeType = contentType.map(ContentType.mimeType) ?? ""
        if isHTML(mimeType), kind == nil || kind == .frame {
            let encoding = WebPageEncoding.detect(
                headerCharset: contentType.flatMap(ContentType.charset), body: bytes, defaultEncoding: defaultEncoding)
            let scan = HTMLResourceScanner.scan(bytes, encoding: encoding.parseName)
            let base = scan.baseHref.flatMap { resolve($0, against: url) } ?? url
            let references = scan.references.compactMap { reference in
                resolve(reference.url, against: base).map { (url: $0, kind: reference.kind) }
            }
            return WebPageDocument(format: .html(encoding), bytes: bytes, base: base, references: references)
        }
        let isStylesheet = mimeType == "text/css" || (kind == .stylesheet && ["", "text/plain"].contains(mimeType))
        guard isStylesheet, kind == nil || kind == .stylesheet else { return nil }
        let references = CSSResourceScanner.scan([UInt8](bytes)).compactMap { found in
            resolve(found.reference.url, against: url).map { (url: $0, kind: found.reference.kind) }
        }
        return WebPageDocument(format: .css, bytes: bytes, base: url, references: references)
    }

    static func isHTML(_ mimeType: String) -> Bool {
        mimeType == "text/html" || mimeType == "application/xhtml+xml"
    }

    /// A URL as written in a document, resolved as a browser would: against `base`, with the
    /// characters a browser percent-encodes (spaces, non-ASCII) encoded first.
    static func resolve(_ written: String, against base: URL) -> URL? {
        let text = HTMLResourceScanner.trimmed(written)
        if let url = URL(string: text, relativeTo: base) { return url.absoluteURL }
        let encoded = text.addingPercentEncoding(withAllowedCharacters: urlCharacters) ?? text
        return URL(string: encoded, relativeTo: base)?.absoluteURL
    }

    /// What may stay as it is in a URL: the unreserved and reserved characters and `%`.
    private static let urlCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")

    /// The document with each URL replaced: `resource` gives a resource's new text (from its
    /// resolved URL), `link` an `a href`'s. Nil when the page cannot be written in its encoding.
    func rewritten(
        resource: @escaping (URL) -> String?, link: @escaping (URL) -> String?, removesBase: Bool
    ) -> Data? {
        let replace = { (reference: WebPageReference) -> String? in
            Self.resolve(reference.url, against: base).flatMap(resource)
        }
        switch format {
        case .css:
            let bytes = [UInt8](bytes)
            return Data(CSSResourceScanner.rewrite(bytes, CSSResourceScanner.scan(bytes), replace))
        case .html(let encoding):
            let rewrite = HTMLResourceScanner.Rewrite(
                resource: replace,
                link: { href in
                    // A link within the page (`#top`) or to a script or a mail address stays.
                    guard !href.hasPrefix("#"), let url = Self.resolve(href, against: base),
                        ["http", "https"].contains(url.scheme?.lowercased() ?? "")
                    else { return nil }
                    return link(url)
                },
                removesBase: removesBase)
            return HTMLResourceScanner.rewrite(
                bytes, encoding: encoding.parseName, outputEncoding: encoding.outputName, prefix: encoding.prefix, rewrite)
        }
    }
}

/// The encoding a page is read and written back in (API.md): the HTTP header's charset, else a
/// byte-order mark, else `<meta charset>` or `http-equiv`, else the request's default.
struct WebPageEncoding: Sendable, Equatable {
    /// The name libxml2 reads the page in; nil: let it read the byte-order mark.
    let parseName: String?
    /// The name libxml2 writes the rewritten page in.
    let outputName: String
    /// Bytes written before the page: a UTF-8 byte-order mark the page began with.
    let prefix: [UInt8]
    /// The encoding found in the body itself (a byte-order mark, a `<meta>`): what
    /// `responseEncoding` says when the header named none. Nil for the header's and the default.
    let declared: String.Encoding?

    static func detect(headerCharset: String?, body: Data, defaultEncoding: String.Encoding) -> WebPageEncoding {
        if let charset = headerCharset, let encoding = String.Encoding(ianaCharsetName: charset) {
            return WebPageEncoding(
                parseName: encoding.ianaCharsetName, outputName: encoding.ianaCharsetName, prefix: [], declared: nil)
        }
        let start = [UInt8](body.prefix(3))
        if start == [0xEF, 0xBB, 0xBF] {
            return WebPageEncoding(parseName: nil, outputName: "utf-8", prefix: start, declared: .utf8)
        }
        if start.starts(with: [0xFF, 0xFE]) || start.starts(with: [0xFE, 0xFF]) {
            // libxml2's "UTF-16" writes a byte-order mark and then little-endian text.
            return WebPageEncoding(parseName: nil, outputName: "utf-16", prefix: [], declared: .utf16)
        }
        if let charset = HTMLResourceScanner.scan(body).declaredCharset,
            var encoding = String.Encoding(ianaCharsetName: charset)
        {
            // A page that says it is UTF-16 but has no byte-order mark is ASCII-compatible bytes:
            // browsers read it as UTF-8 (HTML's encoding sniffing), and so does this.
            if [.utf16, .utf16BigEndian, .utf16LittleEndian, .utf32, .utf32BigEndian, .utf32LittleEndian].contains(encoding) {
                encoding = .utf8
            }
            return WebPageEncoding(
                parseName: encoding.ianaCharsetName, outputName: encoding.ianaCharsetName, prefix: [], declared: encoding)
        }
        return WebPageEncoding(
            parseName: defaultEncoding.ianaCharsetName, outputName: defaultEncoding.ianaCharsetName, prefix: [],
            declared: nil)
    }
}
