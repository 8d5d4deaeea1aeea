import XCTest

@testable import Courier

/// A stylesheet's URLs (the first part of issue 35): `url()` in all three quotings, `@import` in
/// both forms (ASI missed `@import "x.css"`), and where each URL's text is, for rewriting.
final class CSSResourceScannerTests: XCTestCase {
    private func references(_ css: String) -> [WebPageReference] {
        CSSResourceScanner.scan(css).map(\.reference)
    }

    func testThatURLsInAllThreeQuotingsAndBothImportsAreFound() {
        let css = """
            @import "string.css";
            @import 'single.css' screen;
            @import url(bare.css);
            @IMPORT URL( "quoted.css" ) print;
            body { background: url(plain.png) }
            .a { background-image: url('single.png'), url( "double.png" ) }
            @font-face { src: url(font.woff2) format("woff2") }
            """
        XCTAssertEqual(
            references(css),
            [
                WebPageReference(kind: .stylesheet, url: "string.css"), WebPageReference(kind: .stylesheet, url: "single.css"),
                WebPageReference(kind: .stylesheet, url: "bare.css"), WebPageReference(kind: .stylesheet, url: "quoted.css"),
                WebPageReference(kind: .image, url: "plain.png"), WebPageReference(kind: .image, url: "single.png"),
                WebPageReference(kind: .image, url: "double.png"), WebPageReference(kind: .image, url: "font.woff2"),
            ])
    }

    func testThatCommentsStringsDataAndLookalikesAreNotURLs() {
        let css = """
            /* url(commented.png) @import "commented.css"; */
            .q::before { content: "url(in-a-string.png)" }
            .d { background: url(data:image/png;base64,AAAA) }
            .f { background: myurl(not-a-url.png) }
            .e { background: url() }
            """
        XCTAssertEqual(references(css), [])
    }

    func testThatTheRangeIsTheURLsOwnTextForRewriting() {
        let css = #"a{b:url( "x y.png" )}@import 'i.css';c{d:url(z.png)}"#
        let bytes = Array(css.utf8)
        let found = CSSResourceScanner.scan(css)
        XCTAssertEqual(found.map { String(decoding: bytes[$0.range], as: UTF8.self) }, ["x y.png", "i.css", "z.png"])
    }

    func testThatEscapesAreUndone() {
        XCTAssertEqual(references(#"a{b:url("a\"b.png")}"#).map(\.url), [#"a"b.png"#])
        XCTAssertEqual(references(#"a{b:url(caf\e9 .png)}"#).map(\.url), ["café.png"])
        XCTAssertEqual(references(#"a{b:url(a\)b.png)}"#).map(\.url), ["a)b.png"])
    }

    func testThatUnterminatedInputEndsWithoutAURL() {
        for css in ["url(", "url('a.png", "@import \"x.css", "/* open comment url(a.png)", "a{b:url(\"a\nb.png\")}", "\\"] {
            XCTAssertEqual(references(css), [], css)
        }
    }

    func testThatAnUnquotedURLWithSpacesQuotesOrParenthesesInsideIsNoURL() {
        let sheet = "a{b:url( ok.png )} c{d:url(bad name.png)} e{f:url(bad\"q.png)} g{h:url(bad(p.png)}"
        XCTAssertEqual(CSSResourceScanner.scan(sheet).map(\.reference.url), ["ok.png"])
    }

    func testThatARewrittenSheetKeepsItsStringsAndCommentsWhereTheyWere() {
        // The fuzzer's case: an unterminated string ends at its line, and the bad URL after it
        // spans that line; had it been taken for a URL, rewriting it would join the string to a
        // later quote and hide the real import.
        let sheet = "x\") screen@import url(;\n@import url(\"x.css\")/* p\"x\""
        let found = CSSResourceScanner.scan(sheet)
        XCTAssertEqual(found.map(\.reference.url), ["x.css"])
        let rewritten = CSSResourceScanner.rewrite(Array(sheet.utf8), found) { _ in "new.css" }
        XCTAssertEqual(CSSResourceScanner.scan(rewritten).map(\.reference.url), ["new.css"])
    }
}
