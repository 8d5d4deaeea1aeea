/// A parsed request line and header section.
struct RequestHead {
    /// How the request body is delimited (RFC 9112 §6).
    enum BodyFraming: Equatable {
        /// No body.
        case none
        /// Exactly this many bytes follow the head.
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    /// The method token as sent.
    var method: String
    /// The request-target as sent, e.g. `"/echo?x=1"`.
    var target: String
    /// The protocol version as sent, e.g. `"HTTP/1.1"`.
    var version: String
    /// Header fields in order, original spelling.
    var headers: [HeaderField]

    /// The first value of header `name`, compared case-insensitively.
    func value(of name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// All values of header `name`, compared case-insensitively, in order.
    func values(of name: String) -> [String] {
        headers.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    /// True for an HTTP/1.0 request, whose connection closes by default.
    var isHTTP10: Bool { version == "HTTP/1.0" }

    /// Whether the client wants the connection kept open after the response:
    /// HTTP/1.1 unless it sent `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    var wantsKeepAlive: Bool {
        let connection = values(of: "Connection")
        if connection.contains(where: { $0.containsHTTPToken("close") }) { return false }
        if isHTTP10 { return connection.contains { $0.containsHTTPToken("keep-alive") } }
        return true
    }

    /// Whether the client sent `Expect: 100-continue` and waits for an interim response
    /// before sending the body (libcurl waits a full second otherwise).
    var expectsContinue: Bool {
        !isHTTP10 && values(of: "Expect").contains { $0.containsHTTPToken("100-continue") }
    }

    /// How the body is framed.
    /// - Throws: ``RequestParser/Failure/malformed(_:)`` for an unusable combination,
    ///   e.g. conflicting `Content-Length` values or a transfer coding other than chunked.
    func bodyFraming() throws -> BodyFraming {
        let transferEncodings = values(of: "Transfer-Encoding")
        if !transferEncodings.isEmpty {
            // Per RFC 9112 §6.3 chunked must be the final coding; we support no others.
            let codings = transferEncodings.joined(separator: ",").split(separator: ",").map {
                String($0.trimmingHTTPWhitespace())
            }
            guard codings.count == 1, codings[0].equalsIgnoringASCIICase("chunked") else {
                throw RequestParser.Failure.malformed("unsupported Transfer-Encoding")
            }
            return .chunked
        }
        let lengths = Set(
            values(of: "Content-Length").flatMap { $0.split(separator: ",") }.map { $0.trimmingHTTPWhitespace() })
        guard let first = lengths.first else { return .none }
        guard lengths.count == 1, !first.isEmpty, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let length = Int(first)
        else {
            throw RequestParser.Failure.malformed("bad Content-Length")
        }
        return length == 0 ? .none : .length(length)
    }
}
