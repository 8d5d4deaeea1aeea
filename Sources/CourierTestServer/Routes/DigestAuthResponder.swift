extension Route {
    /// `/auth/digest/<user>/<password>[?qop=auth-int][&stale=1]`: HTTP Digest authentication
    /// with MD5 (RFC 7616), realm `Courier`. Without Digest credentials, `401` with
    /// `WWW-Authenticate: Digest realm="Courier", qop="<qop>", nonce="<new>",
    /// opaque="<fixed>", algorithm=MD5` and the text body `credentials required`. The answer is
    /// checked in full: username, realm, a nonce this server issued for this route, uri (the
    /// request-target), opaque, qop, an `nc` higher than any accepted with that nonce, a cnonce,
    /// and the response; for `auth-int` the response covers the MD5 of the request body (libcurl
    /// 7.88 hashes an empty body, so only bodiless requests pass with it). A failing answer gets
    /// a `401` with a new nonce and a body `credentials refused: <why>`; a right one `200`, the
    /// text body `You are <user> by Digest` and `X-Courier-Auth-Scheme: Digest`.
    ///
    /// With `stale: true`, the first right answer for the route gets a `401` whose challenge has
    /// a fresh nonce and `stale=true` (body `nonce is stale`); the answer with the fresh nonce
    /// succeeds. Each `401` is counted in ``TestServer/challengesSent(for:)``.
    public static func digestAuth(
        user: String, password: String, qop: String = "auth", stale: Bool = false
    )
        -> Route
    {
        Route(DigestAuthResponder(user: user, password: password, qop: qop, stale: stale))
    }
}

/// Serves ``Route/digestAuth(user:password:qop:stale:)``.
struct DigestAuthResponder: Endpoint {
    let user: String
    let password: String
    let qop: String
    let stale: Bool

    var digest: DigestAuthentication {
        DigestAuthentication(
            user: user, password: password, realm: HTTPAuthentication.defaultRealm, qop: qop, routePath: path,
            staleOnce: stale)
    }

    func respond(to exchange: Exchange) throws {
        let digest = self.digest
        let request = exchange.request
        let verdict = digest.verify(
            request.value(of: "Authorization"), method: request.method, target: request.target, body: exchange.body,
            on: exchange.server)
        let text: String
        switch verdict {
        case .accepted: return try exchange.authenticated(scheme: "Digest", text: "You are \(user) by Digest")
        case .stale: text = "nonce is stale"
        case .missing: text = "credentials required"
        case .refused(let why): text = "credentials refused: \(why)"
        }
        try exchange.challenge(
            [digest.challenge(on: exchange.server, stale: verdict == .stale)], text: text, routePath: path)
    }
}

extension DigestAuthResponder {
    static let segments = ["auth"]
    init?(_ target: RouteTarget) {
        let qop = target.query("qop") ?? "auth"
        guard target.arguments.count == 3, target.arguments[0] == "digest", qop == "auth" || qop == "auth-int" else {
            return nil
        }
        self.init(
            user: target.arguments[1], password: target.arguments[2], qop: qop, stale: target.query("stale") == "1")
    }
    var path: String {
        var query: [String] = []
        if qop != "auth" { query.append("qop=" + qop) }
        if stale { query.append("stale=1") }
        return "/auth/digest/\(PercentCoding.encode(user))/\(PercentCoding.encode(password))"
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
