extension Route {
    /// `/auth/endless`: always `401` with `WWW-Authenticate: Basic realm="Courier"` and the
    /// text body `credentials required` (none sent) or `credentials refused` (any sent), so a
    /// test can show a client gives up instead of looping. Every answer is counted in
    /// ``TestServer/challengesSent(for:)``.
    public static var endlessAuth: Route { Route(EndlessAuthResponder()) }
}

/// Serves ``Route/endlessAuth``.
struct EndlessAuthResponder: Endpoint {
    func respond(to exchange: Exchange) throws {
        let sent = exchange.request.value(of: "Authorization") != nil
        try exchange.challenge(
            [HTTPAuthentication.basicChallenge(realm: HTTPAuthentication.defaultRealm)],
            text: sent ? "credentials refused" : "credentials required", routePath: path)
    }
}

extension EndlessAuthResponder {
    static let segments = ["auth"]
    init?(_ target: RouteTarget) {
        guard target.arguments == ["endless"] else { return nil }
    }
    var path: String { "/auth/endless" }
}
