extension Route {
    /// `/gzip/bytes/<n>`: the `n` bytes of ``bytes(_:)`` gzip-compressed, with
    /// `Content-Encoding: gzip` and the `Content-Length` of the compressed body. Sent
    /// whatever the request's `Accept-Encoding` says.
    public static func gzipped(_ count: Int) -> Route { Route(CompressedBytesResponder(count: count, format: .gzip)) }

    /// `/deflate/bytes/<n>`: the `n` bytes of ``bytes(_:)`` as zlib-wrapped deflate
    /// (RFC 1950, what RFC 9110 means by "deflate"), with `Content-Encoding: deflate` and
    /// the compressed `Content-Length`.
    public static func deflated(_ count: Int) -> Route { Route(CompressedBytesResponder(count: count, format: .zlib)) }
}

/// Serves ``Route/gzipped(_:)`` and ``Route/deflated(_:)``: the deterministic bytes
/// compressed, with `Content-Encoding` and the compressed `Content-Length`.
///
/// The compressed body is built in memory to learn its length, but streamed from the
/// pattern, so only the compressed size is held (the pattern compresses about 100:1).
struct CompressedBytesResponder: Endpoint {
    let count: Int
    let format: ZlibCompressor.Format

    func respond(to exchange: Exchange) throws {
        var body: [UInt8] = []
        ZlibCompressor.compressDeterministicBytes(count: count, format: format) { body.append(contentsOf: $0) }
        try exchange.respond(
            status: 200,
            headers: [
                HeaderField(name: "Content-Type", value: "application/octet-stream"),
                HeaderField(name: "Content-Encoding", value: format == .gzip ? "gzip" : "deflate"),
            ],
            body: body)
    }
}

extension CompressedBytesResponder {
    static let segments = ["gzip", "deflate"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, target.arguments[0] == "bytes", let count = target.number(at: 1) else {
            return nil
        }
        self.init(count: count, format: target.first == "gzip" ? .gzip : .zlib)
    }
    var path: String { (format == .gzip ? "/gzip" : "/deflate") + "/bytes/\(count)" }
}
