import Foundation

/// Sites of one page each, for what a page refers to and how each URL resolves.
extension WebPageFixture {
    /// `index.html` with every element WebPageRequest fetches, and the ones it must not:
    /// - fetched: `rel="stylesheet"` (style.css, with an image of its own), `rel="preload stylesheet"`
    ///   (a token among others), `script src`, `img src` and its `srcset`'s two candidates, an SVG
    ///   image, an `iframe` (with an image of its own), `url()` in a `<style>` element and in a
    ///   `style` attribute, `video src` and `poster`, `audio src`, `picture > source srcset`,
    ///   `video > source src`, a cross-origin image on the other origin;
    /// - fetched once: duplicate.png, written three ways (plain, with a fragment, as `./`);
    /// - never fetched: `rel=ICON` (favicon.ico), `a href` (linked.html), a `data:` image.
    static func everyElement(in folder: WebPageSiteFolder) -> WebPageFixture {
        let dataImage = TestPNG.dataURL(TestPNG.distinct(99))
        let page = """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <title>Every element</title>
            <link rel="stylesheet" href="style.css">
            <link rel="preload stylesheet" as="style" href="preloaded.css">
            <link rel=ICON href="favicon.ico">
            <script src="script.js"></script>
            <style>
            .inline { background-image: url("inline-style.png"); }
            </style>
            </head>
            <body>
            <img src="image.png" srcset="image-2x.png 2x, image-3x.png 3x" alt="srcset">
            <img src="vector.svg" alt="svg">
            <iframe src="frame.html"></iframe>
            <div class="inline">inline style</div>
            <div style="background: url('attribute.png')">style attribute</div>
            <video src="video.webm" poster="poster.png"></video>
            <audio src="audio.ogg"></audio>
            <picture><source srcset="picture-source.png" type="image/png"><img src="picture.png" alt="picture"></picture>
            <video><source src="source.mp4" type="video/mp4"></video>
            <a href="linked.html">a link, never fetched</a>
            <img src="\(dataImage)" alt="data">
            <img src="duplicate.png" alt="once"><img src="duplicate.png#again" alt="twice"><img src="./duplicate.png" alt="thrice">
            <img src="\(folder.otherURL("cross-origin.png"))" alt="cross-origin">
            </body>
            </html>

            """
        let images = [
            "style-image.png", "inline-style.png", "image.png", "image-2x.png", "image-3x.png", "frame-image.png",
            "attribute.png", "poster.png", "picture-source.png", "picture.png", "duplicate.png",
        ]
        var files: [WebPageFile: Data] = [
            .page("index.html"): utf8(page),
            .page("style.css"): utf8("body { background: url(style-image.png); }\n"),
            .page("preloaded.css"): utf8("p { color: navy; }\n"),
            .page("script.js"): utf8("window.everyElement = true;\n"),
            .page("frame.html"): utf8("<!DOCTYPE html><html><body><img src=\"frame-image.png\"></body></html>\n"),
            .page("vector.svg"): utf8(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"2\" height=\"2\"><rect width=\"2\" height=\"2\" fill=\"#0a0\"/></svg>\n"
            ),
            .page("video.webm"): media("video.webm"),
            .page("audio.ogg"): media("audio.ogg"),
            .page("source.mp4"): media("source.mp4"),
            .other("cross-origin.png"): TestPNG.distinct(50),
            // Decoys: written, so that a wrong request would succeed and show in the log.
            .page("favicon.ico"): TestPNG.distinct(60),
            .page("linked.html"): utf8("<!DOCTYPE html><html><body><img src=\"linked-image.png\"></body></html>\n"),
            .page("linked-image.png"): TestPNG.distinct(61),
        ]
        for (number, image) in images.enumerated() { files[.page(image)] = TestPNG.distinct(number + 1) }
        let fetchedText = [
            "style.css", "preloaded.css", "script.js", "frame.html", "vector.svg", "video.webm", "audio.ogg",
            "source.mp4",
        ]
        return WebPageFixture(
            page: "index.html", files: files,
            resources: Set((images + fetchedText).map(WebPageFile.page) + [.other("cross-origin.png")]),
            neverRequested: [.page("favicon.ico"), .page("linked.html"), .page("linked-image.png")])
    }

    /// `index.html` with main.css, which imports by-url.css with `@import url(…)` and
    /// by-string.css with `@import "…"`; each of the three has an image, the three quotings of
    /// `url()` between them (main.png bare, by-url.png in double quotes, by-string.png in single).
    static func imports(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                """
                <!DOCTYPE html>
                <html><head><link rel="stylesheet" href="main.css"></head>
                <body><p class="by-url">by url</p><p class="by-string">by string</p></body></html>

                """),
            .page("main.css"): utf8(
                """
                @import url(by-url.css);
                @import "by-string.css";
                body { background: url(main.png); }

                """),
            .page("by-url.css"): utf8(".by-url { background-image: url(\"by-url.png\"); }\n"),
            .page("by-string.css"): utf8(".by-string { background-image: url('by-string.png'); }\n"),
            .page("main.png"): TestPNG.distinct(1),
            .page("by-url.png"): TestPNG.distinct(2),
            .page("by-string.png"): TestPNG.distinct(3),
        ]
        return WebPageFixture(
            page: "index.html", files: files,
            resources: Set(
                ["main.css", "by-url.css", "by-string.css", "main.png", "by-url.png", "by-string.png"].map(
                    WebPageFile.page)))
    }

    /// `index.html` with an iframe, frame/frame.html, which has its own stylesheet (with an image)
    /// and image, each relative to the frame: frame/frame.css, frame/frame-background.png,
    /// frame/frame-image.png. The same names at the folder's top (resolved against the page instead
    /// of the frame) are decoys.
    static func frame(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                "<!DOCTYPE html>\n<html><body><iframe src=\"frame/frame.html\"></iframe></body></html>\n"),
            .page("frame/frame.html"): utf8(
                """
                <!DOCTYPE html>
                <html><head><link rel="stylesheet" href="frame.css"></head>
                <body><img src="frame-image.png" alt="in the frame"></body></html>

                """),
            .page("frame/frame.css"): utf8("body { background: url(frame-background.png); }\n"),
            .page("frame/frame-image.png"): TestPNG.distinct(1),
            .page("frame/frame-background.png"): TestPNG.distinct(2),
            .page("frame.css"): utf8("body { background: url(frame-background.png); }\n"),
            .page("frame-image.png"): TestPNG.distinct(3),
            .page("frame-background.png"): TestPNG.distinct(4),
        ]
        return WebPageFixture(
            page: "index.html", files: files,
            resources: Set(
                ["frame/frame.html", "frame/frame.css", "frame/frame-image.png", "frame/frame-background.png"].map(
                    WebPageFile.page)),
            neverRequested: Set(["frame.css", "frame-image.png", "frame-background.png"].map(WebPageFile.page)))
    }

    /// `index.html` with `<base href="assets/">`: its stylesheet and image resolve into assets/,
    /// and the stylesheet's image against the stylesheet (assets/background.png). The same names
    /// at the folder's top are decoys.
    static func baseHref(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                """
                <!DOCTYPE html>
                <html><head><base href="assets/"><link rel="stylesheet" href="style.css"></head>
                <body><img src="logo.png" alt="logo"></body></html>

                """),
            .page("assets/style.css"): utf8("body { background: url(background.png); }\n"),
            .page("assets/logo.png"): TestPNG.distinct(1),
            .page("assets/background.png"): TestPNG.distinct(2),
            .page("style.css"): utf8("body { background: url(background.png); }\n"),
            .page("logo.png"): TestPNG.distinct(3),
            .page("background.png"): TestPNG.distinct(4),
        ]
        return WebPageFixture(
            page: "index.html", files: files,
            resources: Set(["assets/style.css", "assets/logo.png", "assets/background.png"].map(WebPageFile.page)),
            neverRequested: Set(["style.css", "logo.png", "background.png"].map(WebPageFile.page)))
    }

    /// The page URL `redirect-to/moved/index.html` answers 302 to `moved/index.html`, whose
    /// image and stylesheet (with its image) resolve against that final URL. Resolved against the
    /// first URL they would be `redirect-to/moved/…`, which nginx would redirect to the right
    /// file, hiding the mistake from everything but the log: those paths are in
    /// ``neverRequested``.
    static func redirect(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("moved/index.html"): utf8(
                """
                <!DOCTYPE html>
                <html><head><link rel="stylesheet" href="moved.css"></head>
                <body><img src="photo.png" alt="photo"></body></html>

                """),
            .page("moved/moved.css"): utf8("body { background: url(moved-background.png); }\n"),
            .page("moved/photo.png"): TestPNG.distinct(1),
            .page("moved/moved-background.png"): TestPNG.distinct(2),
        ]
        return WebPageFixture(
            page: "redirect-to/moved/index.html", files: files,
            resources: Set(["moved/moved.css", "moved/photo.png", "moved/moved-background.png"].map(WebPageFile.page)),
            neverRequested: Set(
                [
                    "redirect-to/moved/moved.css", "redirect-to/moved/photo.png",
                    "redirect-to/moved/moved-background.png",
                ]
                .map(WebPageFile.page)),
            pageRequests: [.page("redirect-to/moved/index.html"), .page("moved/index.html")])
    }

    /// Cycles that must end: self.css imports itself; ping.css and pong.css import each other;
    /// the page frames itself. Each file is requested once.
    static func cycles(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                """
                <!DOCTYPE html>
                <html><head><link rel="stylesheet" href="self.css"><link rel="stylesheet" href="ping.css"></head>
                <body><iframe src="index.html"></iframe></body></html>

                """),
            .page("self.css"): utf8("@import \"self.css\";\n.self { background: url(self.png); }\n"),
            .page("ping.css"): utf8("@import url(pong.css);\n.ping { background: url(ping.png); }\n"),
            .page("pong.css"): utf8("@import url(\"ping.css\");\n.pong { background: url(pong.png); }\n"),
            .page("self.png"): TestPNG.distinct(1),
            .page("ping.png"): TestPNG.distinct(2),
            .page("pong.png"): TestPNG.distinct(3),
        ]
        return WebPageFixture(
            page: "index.html", files: files,
            resources: Set(
                ["self.css", "ping.css", "pong.css", "self.png", "ping.png", "pong.png"].map(WebPageFile.page)))
    }

    /// Tag soup as old pages were written: uppercase tags and attributes, unclosed `<p>`, `<li>`,
    /// `<td>`, misnested `<b><i>`, unquoted, single-quoted and spaced attribute values, no
    /// `</body>` or `</html>`. Fetched: soup.css (and its image), soup.js, list.png, cell.png,
    /// single-quoted.png, spaced.png; never: never.html (an `A HREF`).
    static func tagSoup(in folder: WebPageSiteFolder) -> WebPageFixture {
        let page = """
            <HTML>
            <HEAD>
            <TITLE>Soup</TITLE>
            <LINK REL=STYLESHEET HREF=soup.css>
            <BODY BGCOLOR=white>
            <P>First paragraph
            <P>Second <B>bold <I>both</B> italic</I>
            <UL><LI>one<LI><IMG SRC=list.png ALT=list><LI>three</UL>
            <TABLE><TR><TD><IMG SRC=cell.png><TD>two</TABLE>
            <IMG SRC='single-quoted.png'><img src = "spaced.png" >
            <SCRIPT SRC=soup.js></SCRIPT>
            <A HREF=never.html>a link</A>

            """
        let images = ["list.png", "cell.png", "single-quoted.png", "spaced.png", "soup-background.png"]
        var files: [WebPageFile: Data] = [
            .page("index.html"): utf8(page),
            .page("soup.css"): utf8("body { background: url(soup-background.png); }\n"),
            .page("soup.js"): utf8("window.soup = true;\n"),
            .page("never.html"): utf8("<html><body>never</body></html>\n"),
        ]
        for (number, image) in images.enumerated() { files[.page(image)] = TestPNG.distinct(number + 1) }
        return WebPageFixture(
            page: "index.html", files: files,
            resources: Set((images + ["soup.css", "soup.js"]).map(WebPageFile.page)),
            neverRequested: [.page("never.html")])
    }
}
