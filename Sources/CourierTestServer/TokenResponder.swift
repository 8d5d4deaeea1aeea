/// Serves ``Route/issueToken(key:)`` and ``Route/tokenProtected(key:)``: a bearer-token
/// API in miniature, for a client's fetch-a-token-then-retry flow. Tokens are counted per key
/// with the server's per-key counter (under the key `token:<key>`).
struct TokenResponder: Responder {
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
