extension Route {
    /// `/redirect-loop`: `302` with `Location: /redirect-loop`, a redirect to itself, for ever.
    public static var redirectLoop: Route { Route(RedirectLoopResponder()) }
}

/// Serves ``Route/redirectLoop``: a route that redirects to itself, so only the client's
/// redirect limit ends the chain.
struct RedirectLoopResponder: Endpoint {
    func respond(to exchange: Exchange) throws {
        try exchange.respond(
            status: 302, text: "redirecting to /redirect-loop", headers: [HeaderField(name: "Location", value: path)])
    }
}

extension RedirectLoopResponder {
    static let segments = ["redirect-loop"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty else { return nil }
    }
    var path: String { "/redirect-loop" }
}
