extension Route {
    /// `/drop/chunked/<n>`: `200` with `Transfer-Encoding: chunked` (even for HTTP/1.0),
    /// complete chunks carrying the first `n / 2` bytes of ``bytes(_:)``, then a clean
    /// close (FIN) without the terminating zero-size chunk.
    public static func dropMidChunked(_ count: Int) -> Route { Route(DropMidChunkedResponder(count: count)) }
}

/// Serves ``Route/dropMidChunked(_:)``: complete chunks for the first half of the
/// body, then a hang-up where the next chunk (or the final zero-size chunk) belongs.
///
/// Always chunked, even for HTTP/1.0: the close-delimited fallback of
/// ``ChunkedBytesResponder`` would make the truncated body look complete.
struct DropMidChunkedResponder: Endpoint {
    let count: Int

    func respond(to exchange: Exchange) throws {
        var pending = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .chunked)
        if !exchange.isHead {
            let half = count / 2
            // At least two chunks when there are two bytes to send, so the client has
            // joined pieces before the drop, as with the complete chunked route.
            let chunkSize = min(ChunkedBytesResponder.maxChunk, max(1, (half + 1) / 2))
            var offset = 0
            while offset < half {
                let length = min(chunkSize, half - offset)
                pending.append(contentsOf: Array("\(String(length, radix: 16))\r\n".utf8))
                DeterministicPattern.withBytes(offset: offset, count: length) { pending.append(contentsOf: $0) }
                pending.append(contentsOf: [0x0D, 0x0A])
                offset += length
                // Bounded batches, so a large count never builds one huge buffer.
                if pending.count >= 64 * 1024 {
                    try exchange.connection.write(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
        }
        try exchange.connection.write(pending)
        exchange.hangUp()
    }
}

extension DropMidChunkedResponder {
    static let segments = ["drop"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, target.arguments[0] == "chunked", let count = target.number(at: 1) else {
            return nil
        }
        self.init(count: count)
    }
    var path: String { "/drop/chunked/\(count)" }
}
