/// Serves ``Route/gzipped(_:)`` and ``Route/deflated(_:)``: the deterministic bytes
/// compressed, with `Content-Encoding` and the compressed `Content-Length`.
///
/// The compressed body is built in memory to learn its length, but streamed from the
/// pattern, so only the compressed size is held (the pattern compresses about 100:1).
struct CompressedBytesResponder: Responder {
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
