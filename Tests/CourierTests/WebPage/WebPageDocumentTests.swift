import Foundation
import XCTest

@testable import Courier

/// A page or stylesheet read and written back with its URLs replaced (WebPageDocument, the
/// scanners' rewriting, WebPageEncoding): every place a URL can be, the page's own encoding, and
/// nothing else of the page changed. No sockets.
final class WebPageDocumentTests: XCTestCase {
    private let pageURL = URL(string: "http://site.example/dir/index.html")!

    private func document(_ bytes: Data, contentType: String = "text/html") -> WebPageDocument {
        WebPageDocument.read(bytes, contentType: contentType, url: pageURL, linkedAs: nil, defaultEncoding: .isoLatin1)!
    }

    /// Every resource becomes "R(<absolute URL>)", every link "L(<absolute URL>)".
    private func rewrite(_ document: WebPageDocument, removesBase: Bool = true) -> Data {
        document.rewritten(
            resource: { "R(" + $0.absoluteString + ")" }, link: { "L(" + $0.absoluteString + ")" }, removesBase: removesBase)!
    }

    func testThatEveryPlaceAURLCanBeIsReplacedAndLinksMadeAbsolute() throws {
        let page = """
            <!DOCTYPE html><html><head><link rel="stylesheet" href="a.css"><script src="/app.js"></script>
            <style>body{background:url(bg.png)}</style></head>
            <body style="background:url('b.png')"><img src="i.png" srcset="i1.png 1x, i2.png 2x">
            <a href="../up.html">up</a><a href="#top">top</a><a href="mailto:x@y">mail</a></body></html>
            """
        let out = String(decoding: rewrite(document(Data(page.utf8))), as: UTF8.self)
        XCTAssertTrue(out.contains(#"href="R(http://site.example/dir/a.css)""#), out)
        XCTAssertTrue(out.contains(#"src="R(http://site.example/app.js)""#), out)
        XCTAssertTrue(out.contains("background:url(R%28http://site.example/dir/bg.png%29)"), out)
        XCTAssertTrue(out.contains("background:url('R%28http://site.example/dir/b.png%29')"), out)
        XCTAssertTrue(
            out.contains(#"srcset="R(http://site.example/dir/i1.png) 1x, R(http://site.example/dir/i2.png) 2x""#), out)
        XCTAssertTrue(out.contains(#"href="L(http://site.example/up.html)""#), out)
        XCTAssertTrue(out.contains(##"href="#top""##), "a link within the page stays")
        XCTAssertTrue(out.contains(#"href="mailto:x@y""#), "a link that is no web page stays")
        XCTAssertTrue(out.hasPrefix("<!DOCTYPE html>"), "no XML declaration, the page's own DOCTYPE: \(out.prefix(40))")
    }

    func testThatAPageWithoutDoctypeGetsNoneAdded() {
        let out = String(decoding: rewrite(document(Data("<p>Hi <img src=x.png>".utf8))), as: UTF8.self)
        XCTAssertFalse(out.contains("DOCTYPE"), out)
        XCTAssertFalse(out.contains("<?xml"), out)
        XCTAssertTrue(out.contains("R(http://site.example/dir/x.png)"), out)
    }

    func testThatTagSoupIsRewrittenAsBrowsersReadIt() {
        let soup = "<HTML><BODY><P>one<P>two<IMG SRC=pic.png ALT=x><UL><LI>a<LI><IMG src='li.png'></UL>"
        let doc = document(Data(soup.utf8))
        XCTAssertEqual(doc.references.map(\.url.lastPathComponent), ["pic.png", "li.png"])
        let out = String(decoding: rewrite(doc), as: UTF8.self)
        XCTAssertTrue(out.contains("R(http://site.example/dir/pic.png)") && out.contains("R(http://site.example/dir/li.png)"), out)
    }

    func testThatBaseHrefResolvesResourcesAndIsDroppedWhenRewriting() {
        let doc = document(Data(#"<head><base href="http://cdn.example/assets/"></head><img src="a.png">"#.utf8))
        XCTAssertEqual(doc.references.map(\.url.absoluteString), ["http://cdn.example/assets/a.png"])
        let out = String(decoding: rewrite(doc), as: UTF8.self)
        XCTAssertFalse(out.contains("cdn.example/assets/\""), "the base's href is gone: \(out)")
        XCTAssertTrue(out.contains("R(http://cdn.example/assets/a.png)"), out)
    }

    func testThatTheHeadersCharsetBeatsTheMetaAndTheOutputKeepsIt() {
        let latin1 = "<meta charset=utf-8><p>caf\u{e9}</p><img src=a.png>".data(using: .isoLatin1)!
        let doc = document(latin1, contentType: "text/html; charset=ISO-8859-1")
        guard case .html(let encoding) = doc.format else { return XCTFail() }
        XCTAssertNil(encoding.declared, "the header's charset is the response's own")
        let out = rewrite(doc)
        XCTAssertTrue(out.contains(0xE9), "é written in ISO-8859-1: \(Array(out))")
        XCTAssertTrue(String(data: out, encoding: .isoLatin1)!.contains("café"))
    }

    func testThatARewrittenPagesMetaNamesTheEncodingItIsWrittenInAndAMatchingOneStaysAsWritten() throws {
        for (meta, expected) in [
            ("<meta charset=utf-8>", "<meta charset=\"iso-8859-1\">"),
            (
                "<meta http-equiv=Content-Type content=\"text/html; charset=utf-8\">",
                "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-1\">"
            ),
            ("<meta charset=\"ISO-8859-1\">", "<meta charset=\"ISO-8859-1\">"),
        ] {
            let latin1 = try XCTUnwrap("<html><head>\(meta)</head><body><p>caf\u{e9}</p></body></html>".data(using: .isoLatin1))
            let out = rewrite(document(latin1, contentType: "text/html; charset=ISO-8859-1"))
            XCTAssertTrue(try XCTUnwrap(String(data: out, encoding: .isoLatin1)).contains(expected + "</head>"), meta)
        }
    }

    func testThatAMetaCharsetIsReadAndTheRewrittenPageStaysInIt() throws {
        let text = "<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=Shift_JIS\"></head><body><p>日本語</p><img src=a.png></body></html>"
        let bytes = try XCTUnwrap(text.data(using: .shiftJIS))
        let doc = document(bytes)
        guard case .html(let encoding) = doc.format else { return XCTFail() }
        XCTAssertEqual(encoding.declared, .shiftJIS)
        let out = rewrite(doc)
        XCTAssertNotNil(out.range(of: Data([0x93, 0xFA, 0x96, 0x7B, 0x8C, 0xEA])), "日本語 in Shift_JIS")
        XCTAssertTrue(try XCTUnwrap(String(data: out, encoding: .shiftJIS)).contains("日本語"))
    }

    func testThatAUTF16PageWithAByteOrderMarkIsWrittenBackInUTF16() throws {
        let text = "<html><body><p>Grüße 日本</p><img src=\"a.png\"></body></html>"
        var bytes = Data([0xFF, 0xFE])
        bytes += try XCTUnwrap(text.data(using: .utf16LittleEndian))
        let doc = document(bytes)
        guard case .html(let encoding) = doc.format else { return XCTFail() }
        XCTAssertEqual(encoding.declared, .utf16)
        XCTAssertEqual(doc.references.map(\.url.lastPathComponent), ["a.png"])
        let out = rewrite(doc)
        XCTAssertEqual(Array(out.prefix(2)), [0xFF, 0xFE], "a byte-order mark first")
        let decoded = try XCTUnwrap(String(data: out, encoding: .utf16))
        XCTAssertTrue(decoded.contains("Grüße 日本") && decoded.contains("R(http://site.example/dir/a.png)"), decoded)
    }

    func testThatAUTF8ByteOrderMarkIsKept() {
        let doc = document(Data([0xEF, 0xBB, 0xBF]) + Data("<p>é</p><img src=a.png>".utf8))
        guard case .html(let encoding) = doc.format else { return XCTFail() }
        XCTAssertEqual(encoding.declared, .utf8)
        let out = rewrite(doc)
        XCTAssertEqual(Array(out.prefix(3)), [0xEF, 0xBB, 0xBF])
        XCTAssertTrue(String(decoding: out, as: UTF8.self).contains("é"))
    }

    func testThatWithNoCharsetAnywhereTheDefaultReadsThePage() {
        let doc = document(Data([0x3C, 0x70, 0x3E, 0xE9, 0x3C, 0x2F, 0x70, 0x3E]))  // <p>é</p> in Latin-1
        guard case .html(let encoding) = doc.format else { return XCTFail() }
        XCTAssertNil(encoding.declared)
        XCTAssertEqual(encoding.outputName, "iso-8859-1")
        XCTAssertTrue(rewrite(doc).contains(0xE9))
    }

    func testThatAStylesheetsURLsAreReplacedInEveryQuotingAndImportForm() {
        let sheet = #"@import "one.css"; @import url(two.css); a{b:url(x.png)} c{d:url("y.png")} e{f:url('z.png')}"#
        let doc = WebPageDocument.read(
            Data(sheet.utf8), contentType: "text/css", url: pageURL, linkedAs: .stylesheet, defaultEncoding: .utf8)!
        XCTAssertEqual(doc.references.map(\.url.lastPathComponent), ["one.css", "two.css", "x.png", "y.png", "z.png"])
        let out = String(
            decoding: doc.rewritten(resource: { "n-" + $0.lastPathComponent }, link: { _ in nil }, removesBase: false)!,
            as: UTF8.self)
        XCTAssertEqual(out, #"@import "n-one.css"; @import url(n-two.css); a{b:url(n-x.png)} c{d:url("n-y.png")} e{f:url('n-z.png')}"#)
    }

    func testThatOnlyPagesAndStylesheetsAreRead() {
        XCTAssertNil(WebPageDocument.read(Data("x".utf8), contentType: "image/png", url: pageURL, linkedAs: .image, defaultEncoding: .utf8))
        XCTAssertNil(
            WebPageDocument.read(Data("<p>".utf8), contentType: "text/html", url: pageURL, linkedAs: .image, defaultEncoding: .utf8),
            "an HTML error page in place of an image is not a page of the tree")
        XCTAssertNotNil(
            WebPageDocument.read(Data("a{}".utf8), contentType: nil, url: pageURL, linkedAs: .stylesheet, defaultEncoding: .utf8),
            "a stylesheet served without a type is still read as one")
    }

    func testThatAPageWhoseCharsetCameFromTheHeaderSaysItInAMetaWhenRewritten() throws {
        let latin1 = try XCTUnwrap("<html><head><title>caf\u{e9}</title></head><body><img src=a.png></body></html>".data(using: .isoLatin1))
        let out = rewrite(document(latin1, contentType: "text/html; charset=ISO-8859-1"))
        let text = try XCTUnwrap(String(data: out, encoding: .isoLatin1))
        XCTAssertTrue(text.contains(#"<head><meta charset="iso-8859-1">"#), text)
        let rereadDocument = WebPageDocument.read(out, contentType: "text/html", url: pageURL, linkedAs: nil, defaultEncoding: .utf8)!
        guard case .html(let encoding) = rereadDocument.format else { return XCTFail() }
        XCTAssertEqual(encoding.declared, .isoLatin1, "the saved copy, read without the header, says its own charset")
    }

    func testThatAPageWithoutAHeadGetsOneForItsCharset() {
        let out = String(decoding: rewrite(document(Data("<p>hi<img src=a.png>".utf8), contentType: "text/html; charset=utf-8")), as: UTF8.self)
        XCTAssertTrue(out.contains(#"<head><meta charset="utf-8"></head>"#), out)
    }
}
