import CourierTestServer
import Foundation

/// One request of the demo and what its saved file must hold.
struct DemoItem: Sendable {
    /// What the saved file is checked against.
    enum Expectation: Sendable {
        /// `TestServer.deterministicBytes(count:)`: the bytes and chunked routes, and what a
        /// redirect, a gzip encoding or a resumed download must come to.
        case deterministicBytes(Int)
        /// The echo route's JSON, reporting that the server received this POST body.
        case echoOfBody(Data)
        /// The echo route's JSON, reporting a multipart body with this field and file.
        case echoOfForm(field: (key: String, value: String), file: (key: String, contents: Data))
    }

    /// What the item shows, for its line ("a redirect").
    let title: String
    let job: FetchJob
    let expectation: Expectation
    /// True for the download that must have been resumed.
    var mustResume = false

    /// The demo's batch against `server`; `uploadFile` is the form's file, holding `upload`.
    static func batch(on server: TestServer, uploadFile: String, upload: Data, resumeKey: String) -> [DemoItem] {
        var items = [1024, 65_536, 1_048_576, 10_485_760].map { count in
            DemoItem(
                title: "\(count) bytes", job: FetchJob(url: server.url(.bytes(count))),
                expectation: .deterministicBytes(count))
        }
        items += [
            DemoItem(
                title: "a chunked body", job: FetchJob(url: server.url(.chunked(100_000))),
                expectation: .deterministicBytes(100_000)),
            DemoItem(
                title: "a redirect", job: FetchJob(url: server.url(.redirect(302, to: Route.bytes(50_000).path))),
                expectation: .deterministicBytes(50_000)),
            DemoItem(
                title: "a gzip-encoded body", job: FetchJob(url: server.url(.gzipped(200_000))),
                expectation: .deterministicBytes(200_000)),
            DemoItem(
                title: "a download that stalls and is resumed",
                job: FetchJob(
                    url: server.url(.stallMidBodyTimes(key: resumeKey, count: 1, bytes: 3_000_000, sent: 1_000_000))),
                expectation: .deterministicBytes(3_000_000), mustResume: true),
            DemoItem(
                title: "a POST", job: FetchJob(url: server.url(.echo), body: .data(postBody)),
                expectation: .echoOfBody(postBody)),
            DemoItem(
                title: "a form upload",
                job: FetchJob(
                    url: server.url(.echo),
                    body: .form([
                        .value(key: "greeting", value: formGreeting),
                        .file(key: "upload", path: uploadFile, contentType: "application/octet-stream", fileName: nil),
                    ])),
                expectation: .echoOfForm(field: ("greeting", formGreeting), file: ("upload", upload))),
        ]
        return items
    }

    /// The body the demo posts to the echo route.
    static let postBody = Data("Hello from courier demo: this body goes to /echo and comes back.".utf8)
    static let formGreeting = "hello from the courier demo"
}
