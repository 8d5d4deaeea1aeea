import Foundation

/// A request the ``TestServer`` received, kept so tests can check what a client sent.
public struct RecordedRequest: Sendable {
    /// The request method exactly as sent, e.g. `"GET"` or `"PATCH"`.
    public let method: String
    /// The request-target as sent, e.g. `"/echo?x=1"`.
    public let target: String
    /// `"HTTP/1.1"` or `"HTTP/1.0"`.
    public let httpVersion: String
    /// The header fields in the order received, with their original spelling.
    public let headers: [HeaderField]
    /// The request body; de-chunked if it was sent with `Transfer-Encoding: chunked`.
    public let body: Data
    /// Which accepted connection carried the request (1-based, in accept order), so
    /// tests can tell whether a client reused a connection.
    public let connectionID: Int

    init(method: String, target: String, httpVersion: String, headers: [HeaderField], body: Data, connectionID: Int) {
        self.method = method
        self.target = target
        self.httpVersion = httpVersion
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
    }

    /// The value of the first header named `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The values of every header named `name`, compared case-insensitively, in order.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }
}
