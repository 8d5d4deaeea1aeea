extension Route {
    /// `/auth/both/<user>/<password>`: offers Basic and Digest (qop `auth`), realm `Courier`,
    /// as two `WWW-Authenticate` fields in one `401` (Basic first, so a client that picks
    /// the first rather than the strongest is caught). Right credentials in either scheme get
    /// `200`, the text body `You are <user> by <Basic|Digest>` and `X-Courier-Auth-Scheme`
    /// naming the scheme the client used; anything else the same `401` (body `credentials
    /// required` or `credentials refused`). Each `401` is counted in ``TestServer/challengesSent(for:)``.
    public static func bothAuth(user: String, password: String) -> Route {
        Route(BothAuthResponder(user: user, password: password))
    }
}

/// Serves ``Route/bothAuth(user:password:)``.
struct BothAuthResponder: Endpoint {
    let user: String
    let password: String

    func respond(to exchange: Exchange) throws {
        let request = exchange.request
        let value = request.value(of: "Authorization")
        if let given = HTTPAuthentication.basicCredentials(value), given == (user, password) {
            return try exchange.authenticated(scheme: "Basic", text: "You are \(user) by Basic")
        }
        let digest = DigestAuthentication(
            user: user, password: password, realm: HTTPAuthentication.defaultRealm, qop: "auth", routePath: path,
            staleOnce: false)
        let verdict = digest.verify(
            value, method: request.method, target: request.target, body: exchange.body, on: exchange.server)
        if verdict == .accepted {
            return try exchange.authenticated(scheme: "Digest", text: "You are \(user) by Digest")
        }
        let basic = HTTPAuthentication.basicChallenge(realm: HTTPAuthentication.defaultRealm)
        try exchange.challenge(
            [basic, digest.challenge(on: exchange.server)],
            text: value == nil ? "credentials required" : "credentials refused", routePath: path)
    }
}

extension BothAuthResponder {
    static let segments = ["auth"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 3, target.arguments[0] == "both" else { return nil }
        self.init(user: target.arguments[1], password: target.arguments[2])
    }
    var path: String { "/auth/both/\(PercentCoding.encode(user))/\(PercentCoding.encode(password))" }
}
