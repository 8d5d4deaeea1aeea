import Foundation

extension Route {
    /// `/chunked/<n>`: the same bytes as ``bytes(_:)`` sent with
    /// `Transfer-Encoding: chunked` in chunks of at most 1000 bytes (at least two
    /// chunks when `n > 1`). Ignores Range: always `200` with the whole body.
    public static func chunked(_ count: Int) -> Route { Route(ChunkedBytesResponder(count: count)) }
}

/// Serves ``Route/chunked(_:)``: the same bytes as ``Route/bytes(_:)`` with
/// `Transfer-Encoding: chunked`.
///
/// Chunks are at most 1000 bytes and there are at least two whenever `count > 1`, so
/// a client's de-chunker really has to join pieces. Many chunks are batched into each
/// write so the route stays fast for large counts.
struct ChunkedBytesResponder: Endpoint {
    let count: Int

    /// Largest chunk payload.
    static let maxChunk = 1000
    /// Bytes of framed chunks gathered before each write.
    private static let writeBatch = 64 * 1024

    func respond(to exchange: Exchange) throws {
        guard !exchange.request.isHTTP10 else {
            try respondUnframed(to: exchange)
            return
        }
        var pending = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .chunked)
        guard !exchange.isHead else {
            try exchange.connection.write(pending)
            return
        }
        let chunkSize = count <= 1 ? max(count, 1) : min(Self.maxChunk, (count + 1) / 2)
        pending.reserveCapacity(Self.writeBatch + Self.maxChunk + 16)
        var offset = 0
        while offset < count {
            let length = min(chunkSize, count - offset)
            pending.append(contentsOf: String(length, radix: 16).utf8)
            pending.append(contentsOf: [0x0D, 0x0A])
            DeterministicPattern.withBytes(offset: offset, count: length) { pending.append(contentsOf: $0) }
            pending.append(contentsOf: [0x0D, 0x0A])
            offset += length
            if pending.count >= Self.writeBatch {
                try exchange.connection.write(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
        pending.append(contentsOf: Array("0\r\n\r\n".utf8))
        try exchange.connection.write(pending)
    }

    /// HTTP/1.0 has no chunked coding, so a 1.0 client gets the bytes delimited by
    /// the connection closing instead, the only other framing it understands.
    private func respondUnframed(to exchange: Exchange) throws {
        exchange.keepAlive = false
        let head = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .none)
        try exchange.connection.write(head)
        guard !exchange.isHead else { return }
        var offset = 0
        while offset < count {
            let length = min(count - offset, DeterministicPattern.blockSize)
            try DeterministicPattern.withBytes(offset: offset, count: length) { try exchange.connection.write($0) }
            offset += length
        }
    }
}

extension ChunkedBytesResponder {
    static let segments = ["chunked"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let count = target.number(at: 0) else { return nil }
        self.init(count: count)
    }
    var deterministicByteCount: Int? { count }
    var path: String { "/chunked/\(count)" }
}
