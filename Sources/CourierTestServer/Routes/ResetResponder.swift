extension Route {
    /// `/reset`: reads the whole request, then resets the connection (TCP RST, via
    /// `SO_LINGER` 0) without answering; the client's next `recv` fails with `ECONNRESET`.
    public static var reset: Route { Route(ResetResponder()) }
}

/// Serves ``Route/reset``: resets the connection (TCP RST) instead of answering.
struct ResetResponder: Endpoint {
    func respond(to exchange: Exchange) throws {
        exchange.connection.reset()
    }
}

extension ResetResponder {
    static let segments = ["reset"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty else { return nil }
    }
    var path: String { "/reset" }
}
