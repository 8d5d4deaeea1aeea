// Saves a web page for offline reading, as a reader app would: the page, its stylesheet and its
// images are stored in a DownloadCache on disk and written as a copy with every resource beside
// it (relative paths). Then, with the server gone, it reads the page again from the cache
// (`.dontLoad`: no request at all) and checks that everything the page refers to is on disk.
//
// Runs offline against Courier's test server on 127.0.0.1, which serves a small article. Give a
// URL (`swift run OfflineReader https://example.org/article.html`) to save a page of yours.
import Courier
import CourierTestServer
import Foundation
import Synchronization

let work = FileManager.default.temporaryDirectory.appendingPathComponent("courier-offline-reader-\(getpid())")
defer { try? FileManager.default.removeItem(at: work) }
let cache = DownloadCache(storagePath: work.appendingPathComponent("cache").path)

/// The article: a stylesheet with a background image of its own, a photo and a link.
func startArticleServer() throws -> (TestServer, URL) {
    let server = try TestServer()
    func attribute(_ url: URL) -> String { url.absoluteString.replacingOccurrences(of: "&", with: "&amp;") }
    let paper = server.url(.text("GIF89a paper texture", contentType: "image/gif"))
    let style = server.url(
        .text("body { font: 18px serif; background: url('\(paper.absoluteString)') }", contentType: "text/css"))
    let photo = server.url(.text("PNG photo of the harbour", contentType: "image/png"))
    let article = server.url(
        .text(
            """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>The harbour at dawn</title>
            <link rel="stylesheet" href="\(attribute(style))"></head>
            <body><h1>The harbour at dawn</h1><img src="\(attribute(photo))" alt="boats">
            <p>Fishing boats come in before the market opens.</p>
            <a href="/status/200">Next article</a></body></html>
            """, contentType: "text/html; charset=utf-8"))
    return (server, article)
}

var server: TestServer?
let articleURL: URL
if CommandLine.arguments.count > 1, let url = URL(string: CommandLine.arguments[1]) {
    articleURL = url
} else {
    let (started, url) = try startArticleServer()
    server = started
    articleURL = url
}

/// The page's delegate hears each resource's end before the page's own: it counts them.
final class ResourceLog: HTTPRequestDelegate, Sendable {
    let fetched = Mutex(0)
    let failed = Mutex(0)

    func requestFinished(_ request: HTTPRequest) {
        guard (request as? WebPageRequest)?.parentRequest != nil else { return }  // the page itself
        fetched.withLock { $0 += 1 }
    }

    func requestFailed(_ request: HTTPRequest) {
        guard (request as? WebPageRequest)?.parentRequest != nil else { return }
        failed.withLock { $0 += 1 }
    }
}

/// Reads the article with `policy`, into `folder`/index.html with its resources beside it.
func read(_ policy: CachePolicy, into folder: URL) async -> (WebPageRequest, ResourceLog) {
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let page = WebPageRequest(url: articleURL)
    let log = ResourceLog()
    page.delegate = log
    page.downloadCache = cache
    page.cachePolicy = policy
    page.cacheStoragePolicy = .permanently  // kept on disk for the next run, not just this session
    page.urlReplacementMode = .replaceWithLocalURLs
    page.downloadDestinationPath = folder.appendingPathComponent("index.html").path
    do {
        _ = try await page.response()
    } catch {
        print("could not read \(articleURL): \(error.message)")
        exit(1)
    }
    return (page, log)
}

let folder = work.appendingPathComponent("saved")
let (online, onlineLog) = await read(.useDefault, into: folder)
let resources = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("index_files").path)
print(
    "saved: index.html and \(resources.count) resources in index_files/, "
        + "\(onlineLog.fetched.withLock { $0 }) from the network")
let savedCopy = try Data(contentsOf: URL(fileURLWithPath: online.downloadDestinationPath!))

server?.stop()  // from here on there is no network: everything must come from the disk
let (offline, offlineLog) = await read(.dontLoad, into: folder)
print(
    "offline: the page from the cache: \(offline.didUseCachedResponse), resources fetched: "
        + "\(offlineLog.fetched.withLock { $0 }), failed: \(offlineLog.failed.withLock { $0 })")

// What a reader shows: the saved file, whose resources are the files beside it.
let page = try String(contentsOfFile: offline.downloadDestinationPath!, encoding: .utf8)
let references = page.matches(of: /(?:src|href)="(index_files\/[^"]+)"/).map { String($0.1) }
let missing = references.filter { !FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
print("offline: \(references.count) local references in the page, \(missing.count) missing")
let title = page.firstMatch(of: /<h1>([^<]*)<\/h1>/).map { String($0.1) } ?? "(none)"
print("offline: reading \"\(title)\"")
let isSame = (try? Data(contentsOf: URL(fileURLWithPath: offline.downloadDestinationPath!))) == savedCopy
print("offline copy identical to the one saved online: \(isSame)")
exit(offline.didUseCachedResponse && missing.isEmpty && isSame ? 0 : 1)
