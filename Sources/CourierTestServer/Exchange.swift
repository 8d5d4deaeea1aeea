import Foundation

/// One request/response turn on a connection: what a ``Responder`` is handed.
///
/// Gives responders the parsed request and two levels of writing: ``respond(status:headers:body:)``
/// for an ordinary complete response, and ``head(status:reason:headers:framing:)`` plus the raw
/// ``connection`` for streaming or deliberately broken responses.
final class Exchange {
    /// How a response body is delimited; decides the framing header the head carries.
    enum Framing {
        /// `Content-Length: n`.
        case length(Int)
        /// `Transfer-Encoding: chunked`; the responder writes the chunks itself.
        case chunked
        /// No framing header: for statuses that never have a body (204, 304), or a
        /// body delimited by closing the connection (set ``keepAlive`` to false).
        case none
    }

    /// The request head.
    let request: RequestHead
    /// The request body, de-chunked.
    let body: Data
    /// The connection the request came on, for raw writes, pauses, and resets.
    let connection: Connection
    /// The server, for routes that keep state across requests.
    let server: ServerCore
    /// Whether the connection stays open after this response. Starts as what the
    /// client asked for; a responder may set it to false to close afterwards.
    var keepAlive: Bool
    /// Header fields added to every response head, after the responder's own; the proxy
    /// mode's `X-Courier-Proxied` goes here.
    var extraHeaders: [HeaderField] = []
    /// The time the response's `Date` header gives; nil for now. The S3 service sets its own
    /// clock's time, which a client reads to correct a skewed clock.
    var date: Date?

    init(request: RequestHead, body: Data, connection: Connection, server: ServerCore, keepAlive: Bool) {
        self.request = request
        self.body = body
        self.connection = connection
        self.server = server
        self.keepAlive = keepAlive
    }

    /// True for `HEAD`: responses carry the head only.
    var isHead: Bool { request.method == "HEAD" }

    /// Serializes a status line and header section, ending with the blank line.
    ///
    /// Adds `Date`, `Server`, the framing header, and `Connection` when the connection
    /// is about to close (or, for HTTP/1.0, when it stays open). The status line uses
    /// the request's HTTP version.
    func head(status: Int, reason: String? = nil, headers: [HeaderField], framing: Framing) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        func line(_ text: String) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(0x0D)
            bytes.append(0x0A)
        }
        line("\(request.version) \(status) \(reason ?? HTTPStatus.reasonPhrase(for: status))")
        if let date {
            line("Date: \(HTTPDate.format(time_t(date.timeIntervalSince1970.rounded(.down))))")
        } else {
            line("Date: \(connection.dateHeaderValue())")
        }
        line("Server: CourierTestServer")
        for field in headers { line("\(field.name): \(field.value)") }
        for field in extraHeaders { line("\(field.name): \(field.value)") }
        switch framing {
        case .length(let length): line("Content-Length: \(length)")
        case .chunked: line("Transfer-Encoding: chunked")
        case .none: break
        }
        if !keepAlive {
            line("Connection: close")
        } else if request.isHTTP10 {
            line("Connection: keep-alive")
        }
        line("")
        return bytes
    }

    /// Sends a complete response in a single write (head and body together), which
    /// avoids the Nagle/delayed-ACK stall a separate small body write would cause.
    ///
    /// Omits the body (but keeps its `Content-Length`) for `HEAD`, and sends neither
    /// for statuses that forbid a body.
    func respond(status: Int, reason: String? = nil, headers: [HeaderField] = [], body: [UInt8] = []) throws {
        let noBody = HTTPStatus.forbidsBody(status)
        var bytes = head(
            status: status, reason: reason, headers: headers, framing: noBody ? .none : .length(body.count))
        if !isHead, !noBody { bytes.append(contentsOf: body) }
        try connection.write(bytes)
    }

    /// Sends a complete `text/plain; charset=utf-8` response.
    func respond(status: Int, text: String, headers: [HeaderField] = []) throws {
        try respond(
            status: status, headers: [HeaderField(name: "Content-Type", value: "text/plain; charset=utf-8")] + headers,
            body: Array(text.utf8))
    }
}
