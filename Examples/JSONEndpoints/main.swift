// A request subclass per JSON endpoint, as ASIHTTPRequest users wrote them: each one knows its
// URL, method and body, parses its reply in `requestFinished()` into a typed result, and only
// then calls `super`, so the delegate and the blocks see the parsed result. An answer that is not
// what the endpoint promises (a 500, HTML instead of JSON) becomes a failure through
// `failWithError(_:)`, never a "finished" request with nothing in it.
//
// Runs offline against Courier's test server on 127.0.0.1. For your own API, change the URLs in
// the "endpoints" section at the bottom and the `Reply` types to the JSON your server sends.
import Courier
import CourierTestServer
import Foundation
import Synchronization

/// What every endpoint shares: the JSON headers, decoding with a status check, and one place that
/// hears of failures. `Reply` is the type the endpoint's JSON decodes to.
class JSONRequest<Reply: Decodable & Sendable>: HTTPRequest, @unchecked Sendable {
    // @unchecked Sendable: the parsed reply is behind a Mutex.
    private let parsed = Mutex<Reply?>(nil)

    /// The decoded answer, set before the delegate and the completion block are told.
    var reply: Reply? { parsed.withLock { $0 } }

    required init(url: URL) {
        super.init(url: url)
        addRequestHeader("Accept", value: "application/json")
        timeOutSeconds = 10
    }

    override func requestFinished() {
        guard (200..<300).contains(responseStatusCode), let data = responseData() else {
            // A 404 or 500 is a finished transfer to Courier; for an API client it is a failure.
            let status = responseStatusMessage ?? "no status line"
            failWithError(HTTPRequestError(type: .unhandledException, message: "unexpected \(status)", url: url))
            return
        }
        do {
            let reply = try JSONDecoder().decode(Reply.self, from: data)
            parsed.withLock { $0 = reply }
            super.requestFinished()  // now the delegate, the selector and the completion block run
        } catch {
            failWithError(
                HTTPRequestError(
                    type: .unhandledException, message: "the answer is not the JSON \(type(of: self)) expects",
                    url: url,
                    underlyingError: error))
        }
    }

    /// Every failure passes here: the transfer's own (refused, timed out) and the ones above.
    override func failWithError(_ error: HTTPRequestError) {
        print("\(type(of: self)) failed: \(error.type): \(error.message)")
        super.failWithError(error)  // sets `error`, then the delegate and the failed block run
    }
}

/// POST /echo with a JSON body. The test server's echo route answers with what it received.
final class EchoRequest: JSONRequest<EchoRequest.Reply>, @unchecked Sendable {
    struct Reply: Decodable, Sendable {
        let method: String
        let bodyLength: Int
    }

    convenience init(server: URL, message: String) {
        self.init(url: server)
        requestMethod = "POST"
        addRequestHeader("Content-Type", value: "application/json")
        postBody = try? JSONEncoder().encode(["message": message])
    }
}

/// GET a user's profile.
final class ProfileRequest: JSONRequest<ProfileRequest.Reply>, @unchecked Sendable {
    struct Reply: Decodable, Sendable {
        let name: String
        let born: Int
    }
}

// MARK: - The endpoints (put your own URLs here)

let server = try TestServer()
defer { server.stop() }
let echoURL = server.url(.echo)
let profileURL = server.url(.text(#"{"name": "Ada Lovelace", "born": 1815}"#, contentType: "application/json"))
let brokenURL = server.url(.text("<html>maintenance</html>", contentType: "text/html"))

let echo = EchoRequest(server: echoURL, message: "hello, courier")
echo.setCompletionBlock { request in
    print("echo: method \(request.reply!.method), \(request.reply!.bodyLength) bytes")
}
echo.startSynchronous()

let profile = ProfileRequest(url: profileURL)
profile.setCompletionBlock { request in print("profile: \(request.reply!.name), born \(request.reply!.born)") }
profile.startSynchronous()

// The same endpoint class pointed at a server that answers HTML: it fails, and no result is set.
let broken = ProfileRequest(url: brokenURL)
broken.setCompletionBlock { _ in print("broken: finished (it should not have)") }
broken.setFailedBlock { request in
    print("broken: failed as it should, reply \(request.reply == nil ? "nil" : "set")")
}
broken.startSynchronous()

let sentLength = echo.postBody?.count ?? -1
let worked =
    echo.reply?.method == "POST" && echo.reply?.bodyLength == sentLength && profile.reply?.born == 1815
    && broken.error?.type == .unhandledException && broken.reply == nil
exit(worked ? 0 : 1)
