import Foundation

/// Pages in other encodings than UTF-8-by-default, each declared one way.
extension WebPageFixture {
    /// One page of ``encodings(in:)``.
    struct EncodingCase: Sendable {
        /// What the case is, for failure messages: "iso-8859-1 by the header".
        var name: String
        /// The page (in its own subfolder, with an image beside it) and its image.
        var fixture: WebPageFixture
        /// The page's encoding, as `responseEncoding` should report it.
        var encoding: String.Encoding
        /// The text of the page's `<p id="text">`, decoded.
        var text: String
    }

    /// The same sentence where each encoding can hold it ("Café Grüße — 日本語"; only its Latin
    /// part in ISO-8859-1, only its Japanese in Shift_JIS, an ASCII spelling in US-ASCII), each
    /// page in a subfolder with an image (SUBFOLDER/pic.png) so that a rewritten page has
    /// something to rewrite, and its encoding said in exactly one place unless stated:
    /// - us-ascii: the header's charset (page.usascii.html);
    /// - iso-8859-1: the header's charset (page.latin1.html);
    /// - iso-8859-1 over a `<meta charset="utf-8">`: the header wins, as in browsers;
    /// - utf-8: the header's charset (page.utf8.html);
    /// - utf-16le: a byte order mark, nothing else (no charset in the header or the page);
    /// - utf-8: `<meta charset="utf-8">` only;
    /// - Shift_JIS: `<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">` only.
    ///
    /// The bytes come from `String.data(using:)`, which on Linux encodes Shift_JIS too
    /// (日本語 is 93 FA 96 7B 8C EA).
    static func encodings(in folder: WebPageSiteFolder) -> [EncodingCase] {
        let full = "Café Grüße — 日本語"
        return [
            encodingCase(
                "us-ascii by the header", subfolder: "ascii", page: "page.usascii.html", encoding: .ascii,
                text: "Cafe Grusse - Nihongo", number: 1),
            encodingCase(
                "iso-8859-1 by the header", subfolder: "latin1", page: "page.latin1.html", encoding: .isoLatin1,
                text: "Café Grüße", number: 2),
            encodingCase(
                "iso-8859-1 by the header over a <meta> saying utf-8", subfolder: "latin1-over-meta",
                page: "page.latin1.html", encoding: .isoLatin1, text: "Café Grüße",
                head: "<meta charset=\"utf-8\">", number: 3),
            encodingCase(
                "utf-8 by the header", subfolder: "utf8-header", page: "page.utf8.html", encoding: .utf8, text: full,
                number: 4),
            encodingCase(
                "utf-16le by its byte order mark only", subfolder: "utf16le", page: "page.html",
                encoding: .utf16LittleEndian, text: full, byteOrderMark: [0xFF, 0xFE], number: 5),
            encodingCase(
                "utf-8 by <meta charset> only", subfolder: "utf8-meta", page: "page.html", encoding: .utf8, text: full,
                head: "<meta charset=\"utf-8\">", number: 6),
            encodingCase(
                "Shift_JIS by <meta http-equiv> only", subfolder: "shift-jis", page: "page.html", encoding: .shiftJIS,
                text: "日本語のページ",
                head: "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\">", number: 7),
        ]
    }

    private static func encodingCase(
        _ name: String, subfolder: String, page: String, encoding: String.Encoding, text: String, head: String = "",
        byteOrderMark: [UInt8] = [], number: Int
    ) -> EncodingCase {
        let html = """
            <!DOCTYPE html>
            <html><head>\(head)<title>\(subfolder)</title></head>
            <body><p id="text">\(text)</p><img src="pic.png" alt=""></body></html>

            """
        guard let encoded = html.data(using: encoding) else {
            preconditionFailure("\(name): the page cannot be written in \(encoding)")
        }
        let pagePath = "\(subfolder)/\(page)"
        let image = WebPageFile.page("\(subfolder)/pic.png")
        let fixture = WebPageFixture(
            page: pagePath,
            files: [.page(pagePath): Data(byteOrderMark) + encoded, image: TestPNG.distinct(number)],
            resources: [image])
        return EncodingCase(name: name, fixture: fixture, encoding: encoding, text: text)
    }
}
