extension Route {
    /// `/stall`: reads the whole request, then sends nothing at all and holds the
    /// connection until the client closes or resets it (counted in
    /// ``TestServer/connectionsClosedByClient``) or the server stops.
    public static var stall: Route { Route(StallResponder()) }
}

/// Serves ``Route/stall``: never answers, holding the connection until the client
/// gives up (counted) or the server stops.
struct StallResponder: Endpoint {
    func respond(to exchange: Exchange) throws {
        try exchange.stall()
    }
}

extension StallResponder {
    static let segments = ["stall"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty else { return nil }
    }
    var path: String { "/stall" }
}
