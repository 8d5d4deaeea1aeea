import Foundation

/// Pages whose resources fail, crawl, have no type, or live on the other origin.
extension WebPageFixture {
    /// `index.html` with ok.png, which loads, and two images that fail: not-found/missing.png
    /// (404) and reset/closed.png (the connection closed with no answer). All three are
    /// requested; the two failures are ``failingResources``. libcurl sends a request again when a
    /// reused connection closes with no answer, on the next idle connection while the pool has
    /// one (at most 5 times): reset/closed.png may be in the log more than once, up to 6 times.
    static func failures(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                """
                <!DOCTYPE html>
                <html><body><img src="ok.png" alt="ok"><img src="not-found/missing.png" alt="404">
                <img src="reset/closed.png" alt="closed"></body></html>

                """),
            .page("ok.png"): TestPNG.distinct(1),
            // There, but the location answers 404 (or closes) before looking.
            .page("not-found/missing.png"): TestPNG.distinct(2),
            .page("reset/closed.png"): TestPNG.distinct(3),
        ]
        let failing: Set<WebPageFile> = [.page("not-found/missing.png"), .page("reset/closed.png")]
        return WebPageFixture(
            page: "index.html", files: files, resources: failing.union([.page("ok.png")]),
            failingResources: failing)
    }

    /// `index.html` with fast.png and slow/large.bin (an `<img>` of `size` bytes sent at 1 KB/s:
    /// 200 KB takes over three minutes), for cancelling a page while a resource is in flight.
    static func slow(in folder: WebPageSiteFolder, size: Int = 200_000) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                "<!DOCTYPE html>\n<html><body><img src=\"fast.png\" alt=\"\"><img src=\"slow/large.bin\" alt=\"\"></body></html>\n"
            ),
            .page("fast.png"): TestPNG.distinct(1),
            .page("slow/large.bin"): Data(repeating: 0x5A, count: size),
        ]
        return WebPageFixture(
            page: "index.html", files: files, resources: [.page("fast.png"), .page("slow/large.bin")])
    }

    /// `index.html` with no-type/untyped.png, which nginx sends with no Content-Type header (a
    /// `data:` URL for it says application/octet-stream), and typed.png, which has one.
    static func untypedResource(in folder: WebPageSiteFolder) -> WebPageFixture {
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                "<!DOCTYPE html>\n<html><body><img src=\"no-type/untyped.png\" alt=\"\"><img src=\"typed.png\" alt=\"\"></body></html>\n"
            ),
            .page("no-type/untyped.png"): TestPNG.distinct(1),
            .page("typed.png"): TestPNG.distinct(2),
        ]
        return WebPageFixture(
            page: "index.html", files: files, resources: [.page("no-type/untyped.png"), .page("typed.png")])
    }

    /// `index.html` with one image of each origin: own.png on the page's origin; other.png on the
    /// other origin by its own host (`localhost`); same-host.png on the other origin by the page's
    /// host (127.0.0.1, another port). For what a resource is sent: cookies, credentials and
    /// custom headers go to own.png only.
    static func crossOrigin(in folder: WebPageSiteFolder) -> WebPageFixture {
        let sameHost = folder.site.otherOriginOnPageHost.absoluteString + "/\(folder.name)/same-host.png"
        let files: [WebPageFile: Data] = [
            .page("index.html"): utf8(
                """
                <!DOCTYPE html>
                <html><body><img src="own.png" alt="own"><img src="\(folder.otherURL("other.png"))" alt="other">
                <img src="\(sameHost)" alt="same host"></body></html>

                """),
            .page("own.png"): TestPNG.distinct(1),
            .other("other.png"): TestPNG.distinct(2),
            .other("same-host.png"): TestPNG.distinct(3),
        ]
        return WebPageFixture(
            page: "index.html", files: files,
            resources: [.page("own.png"), .other("other.png"), .other("same-host.png")])
    }
}
