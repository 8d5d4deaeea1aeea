/// Serves ``Route/gzippedChunked(_:)``: the deterministic bytes gzip-compressed and sent
/// as they come out of the compressor, one chunk per piece, with no `Content-Length`.
struct GzipChunkedResponder: Responder {
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
