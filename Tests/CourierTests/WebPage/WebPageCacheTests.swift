import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// A page saved with a download cache, read again when its server is gone: with
/// `.fallbackToCacheIfLoadFails` (the page's load fails, then the page and its resources come from
/// the cache) the saved copy is whole; nothing of it needs the network.
final class WebPageCacheTests: XCTestCase {
    func testThatAPageReadWithCacheFallbackAfterItsServerStoppedIsWholeFromTheCache() throws {
        let server = try TestServer()
        defer { server.stop() }
        let image = server.url(.text("IMAGE", contentType: "image/png"))
        let sheet = server.url(.text("body { background: url('\(image.absoluteString)') }", contentType: "text/css"))
        func escaped(_ url: URL) -> String { url.absoluteString.replacingOccurrences(of: "&", with: "&amp;") }
        let pageURL = server.url(
            .text(
                #"<html><head><link rel="stylesheet" href="\#(escaped(sheet))"></head><body><img src="\#(escaped(image))"></body></html>"#,
                contentType: "text/html; charset=utf-8"))
        let cache = try makeCache()

        func read(_ policy: CachePolicy) -> WebPageRequest {
            let page = WebPageRequest(url: pageURL)
            page.downloadCache = cache
            page.cachePolicy = policy
            page.urlReplacementMode = .replaceWithData
            page.timeOutSeconds = 5
            page.startSynchronous()
            return page
        }

        let online = read(.useDefault)
        XCTAssertNil(online.error)
        XCTAssertEqual(server.requestsReceived, 3, "the page, its stylesheet, the stylesheet's image")
        server.stop()

        let offline = read(.fallbackToCacheIfLoadFails)
        XCTAssertNil(offline.error)
        XCTAssertTrue(offline.didUseCachedResponse)
        let text = try XCTUnwrap(offline.responseString())
        XCTAssertEqual(text, online.responseString())
        XCTAssertFalse(text.contains("http://127.0.0.1"), "every resource inlined from the cache: \(text)")
        XCTAssertTrue(text.contains("data:image/png;base64," + Data("IMAGE".utf8).base64EncodedString()), "the image inlined")
    }
}
