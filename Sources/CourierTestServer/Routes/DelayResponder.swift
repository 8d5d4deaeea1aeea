extension Route {
    /// `/delay/<ms>`: waits `ms` milliseconds, then answers `200` with the text body
    /// `delayed <ms> ms`. The wait ends early, without an answer, if the client closes
    /// the connection (counted) or the server stops.
    public static func delay(milliseconds: Int) -> Route { Route(DelayResponder(milliseconds: milliseconds)) }
}

/// Serves ``Route/delay(milliseconds:)``: a correct response that is slow to start.
struct DelayResponder: Endpoint {
    let milliseconds: Int

    func respond(to exchange: Exchange) throws {
        try exchange.watchingForClientClose {
            try exchange.connection.sleep(seconds: Double(milliseconds) / 1000)
            try exchange.respond(status: 200, text: "delayed \(milliseconds) ms")
        }
    }
}

extension DelayResponder {
    static let segments = ["delay"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let milliseconds = target.number(at: 0) else { return nil }
        self.init(milliseconds: milliseconds)
    }
    var path: String { "/delay/\(milliseconds)" }
}
