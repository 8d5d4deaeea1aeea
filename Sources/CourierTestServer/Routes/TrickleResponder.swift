extension Route {
    /// `/trickle/<n>?interval=<ms>`: `200` with `Content-Length: n` and the bytes of
    /// ``bytes(_:)``; the head goes out at once, then the body one byte at a time with
    /// `ms` milliseconds between bytes. Stops early, counting the close, if the client
    /// goes away. The connection stays open afterwards as usual.
    public static func trickle(_ count: Int, intervalMilliseconds: Int) -> Route {
        Route(TrickleResponder(count: count, intervalMilliseconds: intervalMilliseconds))
    }
}

/// Serves ``Route/trickle(_:intervalMilliseconds:)``: the ``Route/bytes(_:)`` body one
/// byte at a time, with a pause between bytes.
///
/// Each byte is its own write and, with `TCP_NODELAY`, its own segment, so a client
/// really sees a slow body rather than one the kernel coalesced.
struct TrickleResponder: Endpoint {
    let count: Int
    let intervalMilliseconds: Int

    func respond(to exchange: Exchange) throws {
        let head = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .length(count))
        try exchange.watchingForClientClose {
            try exchange.connection.write(head)
            guard !exchange.isHead else { return }
            for offset in 0..<max(0, count) {
                if offset > 0 { try exchange.connection.sleep(seconds: Double(intervalMilliseconds) / 1000) }
                try DeterministicPattern.withBytes(offset: offset, count: 1) { try exchange.connection.write($0) }
            }
        }
    }
}

extension TrickleResponder {
    static let segments = ["trickle"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let count = target.number(at: 0),
            let interval = target.query("interval").flatMap(RouteTarget.number)
        else { return nil }
        self.init(count: count, intervalMilliseconds: interval)
    }
    var path: String { "/trickle/\(count)?interval=\(intervalMilliseconds)" }
}
