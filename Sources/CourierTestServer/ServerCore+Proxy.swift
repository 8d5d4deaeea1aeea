import Foundation

extension ServerCore {
    /// The per-key counter of `407` challenges.
    static let proxyChallengeKey = "proxy challenges"
    /// The realm of the proxy's challenges.
    static let proxyRealm = "Courier proxy"

    /// Whether a request-target is in absolute form (`http://host/path`), as sent to a proxy.
    static func isAbsoluteForm(_ target: String) -> Bool {
        !target.hasPrefix("/") && target.contains("://")
    }

    /// The path and query of an absolute-form target (`/` if it has none); other targets as they are.
    static func originForm(of target: String) -> String {
        guard isAbsoluteForm(target), let scheme = target.range(of: "://") else { return target }
        let rest = target[scheme.upperBound...]
        return rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { index in
            rest[index] == "?" ? "/" + rest[index...] : String(rest[index...])
        } ?? "/"
    }

    /// The host of an absolute-form target, lowercased, without user info, port or brackets.
    static func host(of target: String) -> String {
        guard let scheme = target.range(of: "://") else { return "" }
        var authority = target[scheme.upperBound...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" }) { authority = authority[..<end] }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close]).lowercased()
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "").lowercased()
    }

    /// Plays the proxy for a request in absolute form: checks `Proxy-Authorization` when
    /// ``proxyCredentials`` are set (`407` otherwise), refuses hosts other than this machine
    /// (`502`), and marks the response as proxied.
    /// - Returns: whether the request is to be served as its local route.
    func admitProxied(_ exchange: Exchange) throws -> Bool {
        let request = exchange.request
        if let credentials = proxyCredentials {
            let value = request.value(of: "Proxy-Authorization")
            let challenge: String
            switch credentials.scheme {
            case .basic:
                let given = HTTPAuthentication.basicCredentials(value)
                if let given, given == (credentials.user, credentials.password) { break }
                challenge = HTTPAuthentication.basicChallenge(realm: Self.proxyRealm)
                return try refuse(exchange, challenge: challenge, refused: value != nil)
            case .digest:
                let digest = DigestAuthentication(
                    user: credentials.user, password: credentials.password, realm: Self.proxyRealm, qop: "auth",
                    routePath: Self.proxyChallengeKey, staleOnce: false)
                let verdict = digest.verify(
                    value, method: request.method, target: request.target, body: exchange.body, on: self)
                if verdict == .accepted { break }
                return try refuse(exchange, challenge: digest.challenge(on: self), refused: value != nil)
            }
        }
        let host = Self.host(of: request.target)
        guard host == "127.0.0.1" || host == "localhost" else {
            try exchange.respond(status: 502, text: "the test server proxies only to itself, not to \(host)")
            return false
        }
        exchange.extraHeaders.append(HeaderField(name: "X-Courier-Proxied", value: "1"))
        return true
    }

    private func refuse(_ exchange: Exchange, challenge: String, refused: Bool) throws -> Bool {
        _ = nextHit(forKey: Self.proxyChallengeKey)
        try exchange.respond(
            status: 407, text: refused ? "proxy credentials refused" : "proxy credentials required",
            headers: [HeaderField(name: "Proxy-Authenticate", value: challenge)])
        return false
    }
}
