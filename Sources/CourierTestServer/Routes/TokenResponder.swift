extension Route {
    /// `/token/<key>`: issues a new bearer token for `key` (text body `token-<n>`, n counting
    /// from 1); only the newest token for a key is valid on ``tokenProtected(key:)``.
    public static func issueToken(key: String) -> Route { Route(TokenResponder(key: key, issues: true)) }

    /// `/protected/<key>`: `200` with the text body `secret for <token>` when the request
    /// carries `Authorization: Bearer <the newest token for key>`, otherwise `401` with
    /// `WWW-Authenticate: Bearer realm="<key>"` and the body `token required`.
    public static func tokenProtected(key: String) -> Route { Route(TokenResponder(key: key, issues: false)) }
}

/// Serves ``Route/issueToken(key:)`` and ``Route/tokenProtected(key:)``: a bearer-token
/// API in miniature, for a client's fetch-a-token-then-retry flow. Tokens are counted per key
/// with the server's per-key counter (under the key `token:<key>`).
struct TokenResponder: Endpoint {
    let key: String
    /// True for the route that issues tokens, false for the protected one.
    let issues: Bool

    func respond(to exchange: Exchange) throws {
        let counterKey = "token:" + key
        if issues {
            let number = exchange.server.nextHit(forKey: counterKey)
            try exchange.respond(status: 200, text: "token-\(number)")
            return
        }
        let newest = exchange.server.hits(forKey: counterKey)
        if newest > 0, exchange.request.value(of: "Authorization") == "Bearer token-\(newest)" {
            try exchange.respond(status: 200, text: "secret for token-\(newest)")
        } else {
            try exchange.respond(
                status: 401, text: "token required",
                headers: [HeaderField(name: "WWW-Authenticate", value: "Bearer realm=\"\(key)\"")])
        }
    }
}

extension TokenResponder {
    static let segments = ["token", "protected"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1 else { return nil }
        self.init(key: target.arguments[0], issues: target.first == "token")
    }
    var path: String { (issues ? "/token/" : "/protected/") + PercentCoding.encode(key) }
}
