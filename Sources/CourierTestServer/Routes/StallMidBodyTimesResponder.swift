extension Route {
    /// `/stall-mid-body-times/<key>/<count>/<bytes>/<sent>`: the first `count` requests for
    /// `key` get the head of a ``bytes(_:)`` response of `bytes` bytes and its first `sent`
    /// bytes, then a stall like ``stall``; later ones get the whole body. For a client's
    /// progress across a timeout and retry. Shares the per-key counter with
    /// ``stallTimes(key:count:)``.
    public static func stallMidBodyTimes(key: String, count: Int, bytes: Int, sent: Int) -> Route {
        Route(StallMidBodyTimesResponder(key: key, count: count, bytes: bytes, sent: sent))
    }
}

/// Serves ``Route/stallMidBodyTimes(key:count:bytes:sent:)``: for the first `count`
/// requests for `key`, the head and the first `sent` bytes, then a stall; afterwards the
/// whole ``Route/bytes(_:)`` body.
struct StallMidBodyTimesResponder: Endpoint {
    let key: String
    let count: Int
    let bytes: Int
    let sent: Int

    func respond(to exchange: Exchange) throws {
        let stalls = exchange.server.nextHit(forKey: key) <= count
        guard stalls else { return try BytesResponder(count: bytes).respond(to: exchange) }
        var head = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .length(bytes))
        // In spans the pattern can hand out: `sent` may be larger than one.
        var offset = 0
        while offset < sent {
            let count = min(DeterministicPattern.blockSize, sent - offset)
            DeterministicPattern.withBytes(offset: offset, count: count) { head.append(contentsOf: $0) }
            offset += count
        }
        try exchange.watchingForClientClose { try exchange.connection.write(head) }
        try exchange.stall()
    }
}

extension StallMidBodyTimesResponder {
    static let segments = ["stall-mid-body-times"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 4, let count = target.number(at: 1), let bytes = target.number(at: 2),
            let sent = target.number(at: 3), sent <= bytes
        else { return nil }
        self.init(key: target.arguments[0], count: count, bytes: bytes, sent: sent)
    }
    var path: String { "/stall-mid-body-times/\(PercentCoding.encode(key))/\(count)/\(bytes)/\(sent)" }
}
