extension Route {
    /// `/gzip/corrupt`: `Content-Encoding: gzip` with a `Content-Length`; the body
    /// (``TestServer/corruptGzipBody``) is a valid gzip header followed by bytes that
    /// are not deflate data.
    public static var corruptGzip: Route { Route(CorruptGzipResponder()) }
}

/// Serves ``Route/corruptGzip``: a gzip header that promises deflate data, followed by
/// deterministic bytes that are not deflate data.
struct CorruptGzipResponder: Endpoint {
    /// The body: a valid 10-byte gzip header (deflate, no flags, no time, unknown OS),
    /// then bytes 0, 1, 2, …: 0 opens a stored block whose length (0x0201) and its
    /// complement (0x0403) disagree, which zlib reports as "invalid stored block lengths".
    static let body: [UInt8] =
        [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF] + TestServer.deterministicBytes(count: 1000)

    func respond(to exchange: Exchange) throws {
        try exchange.respond(
            status: 200,
            headers: [
                HeaderField(name: "Content-Type", value: "application/octet-stream"),
                HeaderField(name: "Content-Encoding", value: "gzip"),
            ],
            body: Self.body)
    }
}

extension CorruptGzipResponder {
    static let segments = ["gzip"]
    init?(_ target: RouteTarget) {
        guard target.arguments == ["corrupt"] else { return nil }
    }
    var path: String { "/gzip/corrupt" }
}
