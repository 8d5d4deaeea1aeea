// ASIHTTPRequest's "How to use it", in Courier: a controller that makes requests
//   - synchronously: `startSynchronous()`, then `request.error` or the response;
//   - asynchronously with itself as the delegate: `requestFinished(_:)` / `requestFailed(_:)`;
//   - asynchronously with selectors of its own: `setDidFinishSelector(Controller.grabDone)`;
//   - asynchronously with blocks: `setCompletionBlock` / `setFailedBlock`.
// An asynchronous request calls back on the main queue (its `callbackQueue`), so a command-line
// program must keep the main queue running: here a RunLoop spin with a deadline until the
// controller has heard of everything (or `dispatchMain()`, and `exit` in the last callback). An
// app's run loop does this already.
//
// Runs offline against Courier's test server on 127.0.0.1; put your own URLs in `grab`'s callers.
import Courier
import CourierTestServer
import Foundation

/// `@MainActor`, as a view controller would be. Its callbacks are `nonisolated` and enter the main
/// actor with `MainActor.assumeIsolated`, which also checks that they really arrive there.
@MainActor
final class Controller: HTTPRequestDelegate {
    private(set) var heard: [String] = []
    private(set) var outstanding = 0

    private func hear(_ line: String) {
        print(line)
        heard.append(line)
        outstanding -= 1
    }

    /// ASI's grabURL: the thread waits; the callbacks (none here) would run on it.
    func grabSynchronously(_ url: URL) {
        let request = HTTPRequest(url: url)
        request.startSynchronous()
        outstanding += 1
        if let error = request.error {
            hear("sync failed: \(error.type)")
        } else {
            hear("sync: \(request.responseString() ?? "")")
        }
    }

    /// ASI's grabURLInBackground: the controller is the delegate.
    func grabInBackground(_ url: URL) {
        let request = HTTPRequest(url: url)
        request.delegate = self  // held weakly: keep the controller alive
        outstanding += 1
        request.startAsynchronous()
    }

    nonisolated func requestFinished(_ request: HTTPRequest) {
        MainActor.assumeIsolated { hear("delegate: \(request.responseString() ?? "")") }
    }

    nonisolated func requestFailed(_ request: HTTPRequest) {
        MainActor.assumeIsolated { hear("delegate failed: \(request.error!.type)") }
    }

    /// The same with selectors: methods of your choosing replace the protocol's.
    func grabWithSelectors(_ url: URL) {
        let request = HTTPRequest(url: url)
        request.delegate = self
        request.setDidFinishSelector(Controller.grabDone)
        request.setDidFailSelector(Controller.grabWentWrong)
        outstanding += 1
        request.startAsynchronous()
    }

    nonisolated func grabDone(_ request: HTTPRequest) {
        MainActor.assumeIsolated { hear("selector: \(request.responseString() ?? "")") }
    }

    nonisolated func grabWentWrong(_ request: HTTPRequest) {
        MainActor.assumeIsolated { hear("selector failed: \(request.error!.type)") }
    }

    /// The same with blocks; they take the request, so nothing is retained in a cycle.
    func grabWithBlocks(_ url: URL) {
        let request = HTTPRequest(url: url)
        request.setCompletionBlock { request in
            MainActor.assumeIsolated { self.hear("block: \(request.responseString() ?? "")") }
        }
        request.setFailedBlock { request in
            MainActor.assumeIsolated { self.hear("block failed: \(request.error!.type)") }
        }
        outstanding += 1
        request.startAsynchronous()
    }
}

let server = try TestServer()
defer { server.stop() }
let hello = server.url(.text("hello"))
let broken = server.url(.reset)  // the server resets the connection: a failure

let controller = Controller()
controller.grabSynchronously(hello)
controller.grabSynchronously(broken)
for url in [hello, broken] {
    controller.grabInBackground(url)
    controller.grabWithSelectors(url)
    controller.grabWithBlocks(url)
}

// Run the main queue until every callback arrived, for at most 30 seconds.
let deadline = Date(timeIntervalSinceNow: 30)
while controller.outstanding > 0, Date() < deadline {
    _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.1))
}

let expected = [
    "sync: hello", "sync failed: connectionFailure",
    "delegate: hello", "delegate failed: connectionFailure",
    "selector: hello", "selector failed: connectionFailure",
    "block: hello", "block failed: connectionFailure",
]
print("heard \(controller.heard.count) of \(expected.count)")
exit(controller.heard.sorted() == expected.sorted() ? 0 : 1)
