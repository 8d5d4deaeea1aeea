/// Serves ``Route/bytes(_:)``: `count` deterministic bytes with a `Content-Length`.
///
/// Streams from a shared pattern buffer in 256 KiB writes, so a multi-gigabyte body
/// never allocates more than the pattern itself.
struct BytesResponder: Responder {
    let count: Int

    func respond(to exchange: Exchange) throws {
        var first = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .length(count))
        guard !exchange.isHead else {
            try exchange.connection.write(first)
            return
        }
        // The head and the start of the body go out together (one segment for small bodies).
        let firstLength = min(count, DeterministicPattern.blockSize - first.count)
        DeterministicPattern.withBytes(offset: 0, count: firstLength) { first.append(contentsOf: $0) }
        try exchange.connection.write(first)
        var offset = firstLength
        while offset < count {
            let length = min(count - offset, DeterministicPattern.blockSize)
            try DeterministicPattern.withBytes(offset: offset, count: length) { try exchange.connection.write($0) }
            offset += length
        }
    }
}
