import Foundation

extension Route {
    /// `/auth/post/<user>/<password>[?scheme=digest]`: like ``basicAuth(user:password:realm:)``
    /// (or ``digestAuth(user:password:qop:stale:)`` with `scheme: "digest"`), but an authorized
    /// request gets `200` with its own body echoed back byte for byte
    /// (`application/octet-stream`, plus `X-Courier-Auth-Scheme` and `X-Courier-Body-Length`), so a
    /// test can prove a body was rewound and sent again after the challenge. Each `401`, whose
    /// body is `credentials required` or `credentials refused`, is counted in
    /// ``TestServer/challengesSent(for:)``.
    public static func postAuth(user: String, password: String, scheme: String = "basic") -> Route {
        Route(PostAuthResponder(user: user, password: password, digest: scheme.lowercased() == "digest"))
    }
}

/// Serves ``Route/postAuth(user:password:scheme:)``.
struct PostAuthResponder: Endpoint {
    let user: String
    let password: String
    /// Digest instead of Basic.
    let digest: Bool

    func respond(to exchange: Exchange) throws {
        let request = exchange.request
        let value = request.value(of: "Authorization")
        let challenge: String
        if digest {
            let digest = DigestAuthentication(
                user: user, password: password, realm: HTTPAuthentication.defaultRealm, qop: "auth",
                routePath: path, staleOnce: false)
            let verdict = digest.verify(
                value, method: request.method, target: request.target, body: exchange.body, on: exchange.server)
            if verdict == .accepted { return try echo(exchange, scheme: "Digest") }
            challenge = digest.challenge(on: exchange.server)
        } else {
            if let given = HTTPAuthentication.basicCredentials(value), given == (user, password) {
                return try echo(exchange, scheme: "Basic")
            }
            challenge = HTTPAuthentication.basicChallenge(realm: HTTPAuthentication.defaultRealm)
        }
        try exchange.challenge(
            [challenge], text: value == nil ? "credentials required" : "credentials refused", routePath: path)
    }

    private func echo(_ exchange: Exchange, scheme: String) throws {
        try exchange.respond(
            status: 200,
            headers: [
                HeaderField(name: "Content-Type", value: "application/octet-stream"),
                HeaderField(name: "X-Courier-Auth-Scheme", value: scheme),
                HeaderField(name: "X-Courier-Body-Length", value: "\(exchange.body.count)"),
            ], body: Array(exchange.body))
    }
}

extension PostAuthResponder {
    static let segments = ["auth"]
    init?(_ target: RouteTarget) {
        let scheme = target.query("scheme") ?? "basic"
        guard target.arguments.count == 3, target.arguments[0] == "post", scheme == "basic" || scheme == "digest"
        else { return nil }
        self.init(user: target.arguments[1], password: target.arguments[2], digest: scheme == "digest")
    }
    var path: String {
        "/auth/post/\(PercentCoding.encode(user))/\(PercentCoding.encode(password))" + (digest ? "?scheme=digest" : "")
    }
}
