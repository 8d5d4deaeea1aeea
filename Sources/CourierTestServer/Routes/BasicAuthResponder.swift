extension Route {
    /// `/auth/basic/<user>/<password>[?realm=<realm>]`: HTTP Basic authentication. Without
    /// Basic credentials, `401` with `WWW-Authenticate: Basic realm="<realm>"` (default
    /// `Courier`) and the text body `credentials required`; with wrong ones, the same `401`
    /// with `credentials refused`; with `user:password`, `200`, the text body
    /// `You are <user> by Basic` and `X-Courier-Auth-Scheme: Basic`. Each `401` is counted in
    /// ``TestServer/challengesSent(for:)``.
    public static func basicAuth(user: String, password: String, realm: String? = nil) -> Route {
        Route(BasicAuthResponder(user: user, password: password, realm: realm))
    }
}

/// Serves ``Route/basicAuth(user:password:realm:)``.
struct BasicAuthResponder: Endpoint {
    let user: String
    let password: String
    /// The realm asked for in the query; nil for ``HTTPAuthentication/defaultRealm``.
    let realm: String?

    func respond(to exchange: Exchange) throws {
        let value = exchange.request.value(of: "Authorization")
        if let given = HTTPAuthentication.basicCredentials(value), given == (user, password) {
            return try exchange.authenticated(scheme: "Basic", text: "You are \(user) by Basic")
        }
        try exchange.challenge(
            [HTTPAuthentication.basicChallenge(realm: realm ?? HTTPAuthentication.defaultRealm)],
            text: value == nil ? "credentials required" : "credentials refused", routePath: path)
    }
}

extension BasicAuthResponder {
    static let segments = ["auth"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 3, target.arguments[0] == "basic" else { return nil }
        self.init(user: target.arguments[1], password: target.arguments[2], realm: target.query("realm"))
    }
    var path: String {
        "/auth/basic/\(PercentCoding.encode(user))/\(PercentCoding.encode(password))"
            + (realm.map { "?realm=" + PercentCoding.encode($0) } ?? "")
    }
}
