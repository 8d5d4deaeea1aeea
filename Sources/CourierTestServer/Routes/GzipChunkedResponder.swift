extension Route {
    /// `/gzip/chunked/<n>`: the same compressed body as ``gzipped(_:)`` (byte for byte),
    /// streamed with `Transfer-Encoding: chunked` as the compressor produces it, so no
    /// `Content-Length`; close-delimited for HTTP/1.0.
    public static func gzippedChunked(_ count: Int) -> Route { Route(GzipChunkedResponder(count: count)) }
}

/// Serves ``Route/gzippedChunked(_:)``: the deterministic bytes gzip-compressed and sent
/// as they come out of the compressor, one chunk per piece, with no `Content-Length`.
struct GzipChunkedResponder: Endpoint {
    let count: Int

    func respond(to exchange: Exchange) throws {
        let body = try StreamedBody(
            exchange: exchange,
            headers: [
                HeaderField(name: "Content-Type", value: "application/octet-stream"),
                HeaderField(name: "Content-Encoding", value: "gzip"),
            ])
        guard !exchange.isHead else { return }
        try ZlibCompressor.compressDeterministicBytes(count: count, format: .gzip) { try body.write($0) }
        try body.finish()
    }
}

extension GzipChunkedResponder {
    static let segments = ["gzip"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, target.arguments[0] == "chunked", let count = target.number(at: 1) else {
            return nil
        }
        self.init(count: count)
    }
    var path: String { "/gzip/chunked/\(count)" }
}
