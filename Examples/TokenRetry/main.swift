// The bearer-token pattern of ABRequestManager: a request to a protected API comes back 401, so
// the client fetches a token with `addFirst(_:)` (it runs next, before every request waiting in
// the queue), and when the token arrives it retries a `copy()` of the failed request with
// `Authorization: Bearer <token>`, again first. Requests made after that carry the token at once.
//
// Runs offline against Courier's test server on 127.0.0.1. For your own API: put your token
// endpoint in `tokenURL` (and parse its answer in `tokenArrived`), your API's URLs in the
// requests added at the bottom.
import Courier
import CourierTestServer
import Foundation

/// Hears of every request of the queue (on the queue's callback queue, the main queue here).
final class TokenClient {
    let queue = NetworkQueue()
    let tokenURL: URL
    private(set) var token: String?
    private(set) var log: [String] = []

    init(tokenURL: URL) {
        self.tokenURL = tokenURL
        queue.maxConcurrentOperationCount = 1  // one at a time, so the order below is the order they run
        queue.shouldCancelAllRequestsOnFailure = false  // a 401 must not cancel the others
        queue.delegate = self
        queue.setRequestDidFinishSelector(TokenClient.requestDone)
        queue.setRequestDidFailSelector(TokenClient.requestWentWrong)
    }

    /// A request to the API, with the token once there is one.
    func add(_ url: URL) {
        let request = HTTPRequest(url: url)
        if let token { request.addRequestHeader("Authorization", value: "Bearer \(token)") }
        queue.addOperation(request)
    }

    private func note(_ line: String) {
        print(line)
        log.append(line)
    }

    func requestDone(_ request: HTTPRequest) {
        if request.url == tokenURL { return tokenArrived(request) }
        note("\(request.url.path) -> \(request.responseStatusCode): \(request.responseString() ?? "")")
    }

    func requestWentWrong(_ request: HTTPRequest) {
        // A 401 that no credentials answer fails with `authentication`, its status and body kept.
        let retried = request.userInfo?["retried"] as? Bool ?? false
        guard request.error?.type == .authentication, request.responseStatusCode == 401, !retried else {
            return note("\(request.url.path) failed: \(request.error?.message ?? "?")")
        }
        note("\(request.url.path) -> 401, fetching a token first")
        let fetch = HTTPRequest(url: tokenURL)
        fetch.userInfo = ["waiting": request]  // the request to retry once the token is here
        queue.addFirst(fetch)
    }

    private func tokenArrived(_ fetch: HTTPRequest) {
        guard fetch.responseStatusCode == 200, let token = fetch.responseString(), !token.isEmpty else {
            return note("no token: status \(fetch.responseStatusCode)")
        }
        self.token = token
        note("token fetched: \(token)")
        guard let failed = fetch.userInfo?["waiting"] as? HTTPRequest else { return }
        let retry = failed.copy()  // same URL, method, headers and body; fresh and unstarted
        retry.addRequestHeader("Authorization", value: "Bearer \(token)")
        retry.userInfo = ["retried": true]  // once: a second 401 is a real failure
        note("retrying \(retry.url.path) with \(token)")
        queue.addFirst(retry)
    }
}

let server = try TestServer()
defer { server.stop() }
let client = TokenClient(tokenURL: server.url(.issueToken(key: "demo")))
let protected = server.url(.tokenProtected(key: "demo"))

client.add(protected)  // no token yet: 401
client.add(server.url(.text("public news")))  // waiting in the queue: the token and the retry go before it
client.queue.go()
// On the main thread this also runs the main queue, where the callbacks arrive; the watchdog
// keeps a broken run from waiting forever.
DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
    print("timed out")
    exit(2)
}
client.queue.waitUntilAllOperationsAreFinished()

client.add(protected)  // made with the token: no 401 this time
client.queue.waitUntilAllOperationsAreFinished()

let expected = [
    "/protected/demo -> 401, fetching a token first",
    "token fetched: token-1",
    "retrying /protected/demo with token-1",
    "/protected/demo -> 200: secret for token-1",
    "/text -> 200: public news",
    "/protected/demo -> 200: secret for token-1",
]
exit(client.log == expected ? 0 : 1)
