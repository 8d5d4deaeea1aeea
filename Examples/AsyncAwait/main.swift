// Courier from async code: `try await request.response()` starts a request and returns it once it
// finished; it throws `HTTPRequestError` (typed throws, so `catch` knows the type), several
// requests run at once with `async let` or a task group, and cancelling the Task cancels the
// request, which then throws `.requestCancelled`.
//
// Runs offline against Courier's test server on 127.0.0.1; put your own URLs where the routes are.
// The callbacks behind `response()` arrive on the main queue: top-level `await` code like this
// keeps the main queue running. (An app whose main thread is busy elsewhere sets
// `HTTPRequest.defaultCallbackQueue` to a queue of its own before making requests.)
import Courier
import CourierTestServer
import Foundation

let server = try TestServer()
defer { server.stop() }
var failures = 0
@MainActor func check(_ ok: Bool, _ what: String) {
    if !ok {
        print("NOT AS EXPECTED: \(what)")
        failures += 1
    }
}
DispatchQueue.global().asyncAfter(deadline: .now() + 30) {  // a broken run must not hang
    print("timed out")
    exit(2)
}

// 1. One request. `do throws(HTTPRequestError)` gives `error` its type in the catch.
do throws(HTTPRequestError) {
    let hello = try await HTTPRequest(url: server.url(.text("hello"))).response()
    print("one: \(hello.responseStatusCode) \(hello.responseString() ?? "")")
    check(hello.responseString() == "hello", "the text arrived")
} catch {
    print("one failed: \(error.type)")
    failures += 1
}

// 2. Two at once with `async let`: both run while this code waits for the first.
do {
    async let small = HTTPRequest(url: server.url(.bytes(1000))).response()
    async let large = HTTPRequest(url: server.url(.bytes(100_000))).response()
    let (a, b) = try await (small, large)
    print("async let: \(a.totalBytesRead) and \(b.totalBytesRead) bytes")
    check(a.totalBytesRead + b.totalBytesRead == 101_000, "both bodies arrived")
} catch {
    print("async let failed: \(error)")
    failures += 1
}

// 3. A task group: any number at once, results as they come (sorted here to print them in order).
let sizes = [1 << 10, 16 << 10, 256 << 10, 1 << 20]
let downloaded = await withTaskGroup(of: (Int, Int64).self) { group in
    for size in sizes {
        group.addTask {
            do throws(HTTPRequestError) {
                return (size, try await HTTPRequest(url: server.url(.bytes(size))).response().totalBytesRead)
            } catch {
                print("\(size) failed: \(error.type)")
                return (size, -1)
            }
        }
    }
    var results: [(Int, Int64)] = []
    for await result in group { results.append(result) }
    return results.sorted { $0.0 < $1.0 }
}
print("group: " + downloaded.map { "\($0.1)" }.joined(separator: ", ") + " bytes")
check(downloaded.map { Int($0.1) } == sizes, "every size arrived")

// 4. A failure is thrown, not returned: here no progress for half a second is a timeout.
do throws(HTTPRequestError) {
    let stalled = HTTPRequest(url: server.url(.stall))
    stalled.timeOutSeconds = 0.5
    _ = try await stalled.response()
    check(false, "a stalled request finished")
} catch {
    print("timeout: \(error.type)")
    check(error.type == .requestTimedOut, "the stall timed out")
}

// 5. Cancelling the Task cancels the request at once, which throws `.requestCancelled`.
let started = Date()
let slow = Task { () async throws -> HTTPRequest in
    try await HTTPRequest(url: server.url(.delay(milliseconds: 5_000))).response()
}
try await Task.sleep(for: .milliseconds(200))  // let it start
slow.cancel()
switch await slow.result {
case .success: check(false, "the slow request finished although cancelled")
case .failure(let error as HTTPRequestError):
    let seconds = Date().timeIntervalSince(started)
    print("cancelled: \(error.type)\(seconds < 2 ? " promptly" : " after \(seconds) s")")
    check(error.type == .requestCancelled && seconds < 2, "the cancel reached the request at once")
case .failure(let error): check(false, "an unexpected error \(error)")
}

print(failures == 0 ? "all as expected" : "\(failures) not as expected")
exit(failures == 0 ? 0 : 1)
