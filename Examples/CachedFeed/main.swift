// A download cache on disk: the first request loads, the next is answered from the cache while
// it is fresh, and with the server gone the cached copy is the fallback.
//
// Runs offline against Courier's test server on 127.0.0.1.
import Courier
import CourierTestServer
import Foundation

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cached-feed-\(getpid())")
defer { try? FileManager.default.removeItem(at: folder) }
HTTPRequest.defaultCache = DownloadCache(storagePath: folder.path)

let server = try TestServer()
let feed = server.url(.cacheable(version: "1"))

func fetch(_ label: String, policy: CachePolicy = .useDefault) -> HTTPRequest {
    let request = HTTPRequest(url: feed)
    request.cachePolicy = policy
    request.secondsToCache = 60  // fresh for a minute, whatever the headers say
    request.startSynchronous()
    let source = request.didUseCachedResponse ? "the cache" : "the network"
    print("\(label): \(request.error.map { "failed: \($0.message)" } ?? request.responseString() ?? "") from \(source)")
    return request
}

let first = fetch("first ")
let second = fetch("second")
server.stop()
let offline = fetch("offline", policy: [.askServerIfModified, .fallbackToCacheIfLoadFails])
exit(!first.didUseCachedResponse && second.didUseCachedResponse && offline.didUseCachedResponse ? 0 : 1)
