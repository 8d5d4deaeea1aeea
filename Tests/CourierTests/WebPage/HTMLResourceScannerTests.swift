import Foundation
import XCTest

@testable import Courier

/// What a page refers to, read by libxml2's HTML parser (the first part of issue 35): every
/// element API.md names, tag soup as browsers read it, and nothing WebPageRequest must not fetch.
final class HTMLResourceScannerTests: XCTestCase {
    private func scan(_ html: String, encoding: String? = nil) -> HTMLResourceScanner.Scan {
        HTMLResourceScanner.scan(Data(html.utf8), encoding: encoding)
    }

    private func urls(_ scan: HTMLResourceScanner.Scan) -> [String] { scan.references.map(\.url) }

    func testThatEveryFetchedElementIsFoundInDocumentOrderWithItsKind() {
        let page = """
            <!DOCTYPE html><html><head>
            <base href="http://cdn.example/base/">
            <link rel="stylesheet" href="a.css"><link rel="alternate stylesheet" href="b.css">
            <link REL="StyleSheet preload" href=" c.css ">
            <link rel="icon" href="favicon.ico"><link rel="preload" href="font.woff2">
            <script src="app.js"></script><script>var inline = 1;</script>
            <style>body { background: url(bg.png) } @import "imported.css";</style>
            </head><body style="background-image: url('body.png')">
            <img src="i.png" srcset="i-1x.png 1x, i-2x.png 2x">
            <iframe src="frame.html"></iframe><frame src="old-frame.html">
            <picture><source srcset="s-small.webp 480w, s-large.webp 800w"><img src="fallback.jpg"></picture>
            <video src="movie.mp4" poster="poster.jpg"><source src="movie.webm"></video>
            <audio src="sound.ogg"></audio>
            <a href="elsewhere.html">a link</a><img src="data:image/png;base64,AAAA">
            </body></html>
            """
        let result = scan(page)
        XCTAssertEqual(result.baseHref, "http://cdn.example/base/")
        XCTAssertEqual(
            result.references,
            [
                WebPageReference(kind: .stylesheet, url: "a.css"), WebPageReference(kind: .stylesheet, url: "b.css"),
                WebPageReference(kind: .stylesheet, url: "c.css"), WebPageReference(kind: .script, url: "app.js"),
                WebPageReference(kind: .image, url: "bg.png"), WebPageReference(kind: .stylesheet, url: "imported.css"),
                WebPageReference(kind: .image, url: "body.png"), WebPageReference(kind: .image, url: "i.png"),
                WebPageReference(kind: .image, url: "i-1x.png"), WebPageReference(kind: .image, url: "i-2x.png"),
                WebPageReference(kind: .frame, url: "frame.html"), WebPageReference(kind: .frame, url: "old-frame.html"),
                WebPageReference(kind: .image, url: "s-small.webp"), WebPageReference(kind: .image, url: "s-large.webp"),
                WebPageReference(kind: .image, url: "fallback.jpg"), WebPageReference(kind: .media, url: "movie.mp4"),
                WebPageReference(kind: .image, url: "poster.jpg"), WebPageReference(kind: .media, url: "movie.webm"),
                WebPageReference(kind: .media, url: "sound.ogg"),
            ])
        XCTAssertFalse(urls(result).contains("elsewhere.html"), "a href is never fetched")
        XCTAssertFalse(urls(result).contains("favicon.ico"), "nor an icon")
        XCTAssertFalse(urls(result).contains { $0.hasPrefix("data:") }, "nor a data: URI")
    }

    func testThatTagSoupIsReadAsABrowserReadsIt() {
        let soup = """
            <HTML><HEAD><LINK REL=stylesheet HREF=soup.css><TITLE>x</TITLE>
            <BODY><P>unclosed <IMG SRC=one.gif ALT=one><p><IMG src='two.gif'><TABLE><TR><TD><IMG SRC="three.gif">
            <SCRIPT SRC=s.js></SCRIPT>
            """
        XCTAssertEqual(urls(scan(soup)), ["soup.css", "one.gif", "two.gif", "three.gif", "s.js"])
    }

    func testThatEntitiesInAttributesAreDecoded() {
        XCTAssertEqual(urls(scan(#"<img src="a.png?x=1&amp;y=2"><img src="b&#46;png">"#)), ["a.png?x=1&y=2", "b.png"])
    }

    func testThatTheDeclaredEncodingReadsNonASCIIURLs() {
        // "é" in ISO-8859-1 is one byte, 0xE9.
        var latin1 = Data("<meta charset=\"iso-8859-1\"><img src=\"caf".utf8)
        latin1.append(0xE9)
        latin1.append(contentsOf: Array(".png\">".utf8))
        XCTAssertEqual(HTMLResourceScanner.scan(latin1).references.map(\.url), ["café.png"])
        XCTAssertEqual(HTMLResourceScanner.scan(latin1, encoding: "iso-8859-1").references.map(\.url), ["café.png"])
    }

    func testThatAnEmptyOrBinaryPageHasNoReferences() {
        XCTAssertEqual(HTMLResourceScanner.scan(Data()), HTMLResourceScanner.Scan())
        XCTAssertEqual(HTMLResourceScanner.scan(Data([0, 1, 2, 255, 254])).references, [])
    }

    func testThatDeepNestingIsReadAndWalkedWithoutExhaustingTheStack() {
        let deep = String(repeating: "<div>", count: 1_500) + "<img src=deep.png>"
        XCTAssertEqual(urls(scan(deep)), ["deep.png"], "deeper than libxml2's default limit of 256")
        let hostile = "<img src=first.png>" + String(repeating: "<div>", count: 100_000) + "<img src=deep.png>"
        XCTAssertEqual(urls(scan(hostile)), ["first.png", "deep.png"], "100,000 deep: read, walked and freed")
    }

    func testThatSrcsetIsSplitAsHTMLSplitsIt() {
        XCTAssertEqual(HTMLResourceScanner.srcsetURLs("a.png 1x, b.png 2x"), ["a.png", "b.png"])
        XCTAssertEqual(HTMLResourceScanner.srcsetURLs("a.png,b.png"), ["a.png,b.png"], "a comma inside a URL")
        XCTAssertEqual(HTMLResourceScanner.srcsetURLs("a.png, b.png"), ["a.png", "b.png"])
        XCTAssertEqual(HTMLResourceScanner.srcsetURLs("  a.png 480w (max-width: 600px, x), b.png 800w"), ["a.png", "b.png"])
        XCTAssertEqual(HTMLResourceScanner.srcsetURLs(""), [])
    }
}
