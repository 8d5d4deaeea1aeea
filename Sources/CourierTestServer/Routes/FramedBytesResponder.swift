extension Route {
    /// `/framed/<n>?cl=<v>&cl=<v>&chunked=1`: `200` with the `n` bytes of ``bytes(_:)``,
    /// framed as the query says, to test how a client copes with ambiguous framing
    /// (CWE-444). Each `cl` value is sent verbatim as its own `Content-Length` field, in
    /// order (none by default, so "10, 20" or "-1" go out as given); with `chunked=1` the
    /// body is sent as two chunks under `Transfer-Encoding: chunked`, otherwise raw. The
    /// server adds no framing field of its own and closes the connection after the body,
    /// so a client that ignores a bad length reads up to the close.
    public static func framed(_ count: Int, contentLengths: [String] = [], chunked: Bool = false) -> Route {
        Route(FramedBytesResponder(count: count, contentLengths: contentLengths, chunked: chunked))
    }
}

/// Serves ``Route/framed(_:contentLengths:chunked:)``: deterministic bytes under the
/// `Content-Length` and `Transfer-Encoding` fields the route names, whatever they say.
struct FramedBytesResponder: Endpoint {
    let count: Int
    let contentLengths: [String]
    let chunked: Bool

    func respond(to exchange: Exchange) throws {
        exchange.keepAlive = false
        var fields = [HeaderField(name: "Content-Type", value: "application/octet-stream")]
        fields += contentLengths.map { HeaderField(name: "Content-Length", value: $0) }
        if chunked { fields.append(HeaderField(name: "Transfer-Encoding", value: "chunked")) }
        var bytes = exchange.head(status: 200, headers: fields, framing: .none)
        guard !exchange.isHead else {
            try exchange.connection.write(bytes)
            return
        }
        let body = TestServer.deterministicBytes(count: count)
        if chunked {
            // Two chunks, so a client really de-chunks rather than reading one block.
            let half = body.count / 2
            for part in [body.prefix(half), body.suffix(from: half)] where !part.isEmpty {
                bytes += Array(String(part.count, radix: 16).utf8) + [0x0D, 0x0A]
                bytes += part
                bytes += [0x0D, 0x0A]
            }
            bytes += Array("0\r\n\r\n".utf8)
        } else {
            bytes += body
        }
        try exchange.connection.write(bytes)
    }
}

extension FramedBytesResponder {
    static let segments = ["framed"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let count = target.number(at: 0) else { return nil }
        let lengths = target.query.filter { $0.name == "cl" }.map(\.value)
        guard target.query.allSatisfy({ $0.name == "cl" || ($0.name == "chunked" && $0.value == "1") }) else {
            return nil
        }
        self.init(count: count, contentLengths: lengths, chunked: target.query("chunked") == "1")
    }
    var path: String {
        var query = contentLengths.map { "cl=" + PercentCoding.encode($0) }
        if chunked { query.append("chunked=1") }
        return "/framed/\(count)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
