extension Route {
    /// `/informational/<n>`: `n` interim heads `HTTP/1.1 100 Continue` (each a status line and
    /// a blank line), then `200` with the body `ok`.
    public static func informationalFlood(_ count: Int) -> Route {
        Route(InformationalFloodResponder(count: count))
    }

    /// `/informational/endless`: interim `100 Continue` heads without end, until the client
    /// closes the connection (counted in ``TestServer/connectionsClosedByClient``) or the
    /// server stops; no final response ever comes.
    public static var endlessInformational: Route { Route(InformationalFloodResponder(count: nil)) }
}

/// Serves ``Route/informationalFlood(_:)`` and ``Route/endlessInformational``: a flood of 1xx
/// responses before the final one, or instead of it.
struct InformationalFloodResponder: Endpoint {
    /// How many interim heads; nil for no end.
    let count: Int?

    /// Heads per write: 32 KiB of them, so the flood is fast but never one huge buffer.
    private static let batch = Array(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 1260).utf8)
    private static let headsPerBatch = 1260

    func respond(to exchange: Exchange) throws {
        try exchange.watchingForClientClose {
            if let count {
                var left = max(0, count)
                while left >= Self.headsPerBatch {
                    try exchange.connection.write(Self.batch)
                    left -= Self.headsPerBatch
                }
                try exchange.connection.write(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: left))
                try exchange.respond(status: 200, text: "ok")
            } else {
                // Ends when the write fails because the client went away, or the server stops.
                while !exchange.server.isStopping { try exchange.connection.write(Self.batch) }
            }
        }
    }
}

extension InformationalFloodResponder {
    static let segments = ["informational"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1 else { return nil }
        if target.arguments[0] == "endless" {
            self.init(count: nil)
        } else if let count = target.number(at: 0) {
            self.init(count: count)
        } else {
            return nil
        }
    }
    var path: String { "/informational/\(count.map(String.init) ?? "endless")" }
}
