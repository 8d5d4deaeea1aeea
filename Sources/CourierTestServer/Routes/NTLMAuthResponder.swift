import Foundation

extension Route {
    /// `/auth/ntlm/<user>/<password>/<domain>`: an NTLM handshake as libcurl speaks it
    /// (`CURLAUTH_NTLM`, user given as `<domain>\<user>`). NTLM authenticates a connection,
    /// so the route remembers its state per connection:
    /// - no `Authorization: NTLM ...`: `401` with `WWW-Authenticate: NTLM`, body `credentials required`;
    /// - a Type 1 message: `401` with `WWW-Authenticate: NTLM <Type 2>`, body `NTLM challenge`; the
    ///   Type 2 has a random server challenge, Unicode (if the client offered it) or OEM strings,
    ///   the NTLM2-key and target-info flags and target info for domain `COURIER`, which makes
    ///   libcurl answer with NTLMv2 responses;
    /// - a Type 3 on the same connection: checked (user case-insensitively, domain exactly, and the
    ///   NTLMv2 response against the password). Right: `200`, the text body
    ///   `You are <user> from <domain>/<workstation>` (as the client sent them) and
    ///   `X-Courier-Auth-Scheme: NTLM`; later requests for the route on that connection succeed
    ///   without credentials. Wrong, NTLMv1 responses, or a Type 3 with no Type 2 on this
    ///   connection: `401` with `WWW-Authenticate: NTLM` and a body `credentials refused: <why>`.
    ///
    /// Each `401` is counted in ``TestServer/challengesSent(for:)``.
    public static func ntlmAuth(user: String, password: String, domain: String) -> Route {
        Route(NTLMAuthResponder(user: user, password: password, domain: domain))
    }
}

/// Serves ``Route/ntlmAuth(user:password:domain:)``.
struct NTLMAuthResponder: Endpoint {
    let user: String
    let password: String
    let domain: String

    /// What a connection remembers between the Type 2 and the Type 3.
    private struct Pending {
        var challenge: [UInt8]
        var flags: UInt32
    }

    private var pendingKey: String { "ntlm pending " + path }
    private var authenticatedKey: String { "ntlm authenticated " + path }

    func respond(to exchange: Exchange) throws {
        let memory = exchange.connection
        let value = exchange.request.value(of: "Authorization")
        guard let (scheme, rest) = HTTPAuthentication.split(value), scheme.equalsIgnoringASCIICase("NTLM") else {
            if let greeting = memory.routeMemory[authenticatedKey] as? String {
                return try exchange.authenticated(scheme: "NTLM", text: greeting)
            }
            return try refuse(exchange, "credentials required")
        }
        guard let decoded = Data(base64Encoded: rest).map(Array.init), let type = NTLMMessage.type(of: decoded) else {
            return try refuse(exchange, "credentials refused: not an NTLM message")
        }
        switch type {
        case 1:
            var random = SystemRandomNumberGenerator()
            let challenge = (0..<8).map { _ in UInt8.random(in: 0...255, using: &random) }
            let offered = NTLMMessage.negotiateFlags(decoded)
            let flags =
                (offered & NTLMMessage.Flag.unicode != 0 ? NTLMMessage.Flag.unicode : NTLMMessage.Flag.oem)
                | NTLMMessage.Flag.requestTarget | NTLMMessage.Flag.ntlm | NTLMMessage.Flag.alwaysSign
                | NTLMMessage.Flag.targetTypeDomain | NTLMMessage.Flag.ntlm2Key | NTLMMessage.Flag.targetInfo
            memory.routeMemory[pendingKey] = Pending(challenge: challenge, flags: flags)
            memory.routeMemory[authenticatedKey] = nil
            let type2 = NTLMMessage.challenge(challenge, flags: flags).message
            try exchange.challenge(
                ["NTLM " + Data(type2).base64EncodedString()], text: "NTLM challenge", routePath: path)
        case 3:
            guard let pending = memory.routeMemory.removeValue(forKey: pendingKey) as? Pending else {
                return try refuse(exchange, "credentials refused: no NTLM challenge on this connection")
            }
            let unicode = pending.flags & NTLMMessage.Flag.unicode != 0
            guard let answer = NTLMMessage.authenticate(decoded, unicode: unicode) else {
                return try refuse(exchange, "credentials refused: malformed type-3 message")
            }
            guard answer.user.lowercased() == user.lowercased(), answer.domain == domain else {
                return try refuse(exchange, "credentials refused: unknown user or domain")
            }
            guard answer.ntResponse.count > 24 else {
                return try refuse(exchange, "credentials refused: NTLMv1 responses are not accepted")
            }
            guard
                NTLMMessage.isValidNTLMv2(
                    answer.ntResponse, challenge: pending.challenge, user: answer.user, domain: answer.domain,
                    password: password)
            else { return try refuse(exchange, "credentials refused: wrong password") }
            let greeting = "You are \(answer.user) from \(answer.domain)/\(answer.workstation)"
            memory.routeMemory[authenticatedKey] = greeting
            try exchange.authenticated(scheme: "NTLM", text: greeting)
        default:
            try refuse(exchange, "credentials refused: unexpected NTLM message type \(type)")
        }
    }

    private func refuse(_ exchange: Exchange, _ text: String) throws {
        exchange.connection.routeMemory[pendingKey] = nil
        try exchange.challenge(["NTLM"], text: text, routePath: path)
    }
}

extension NTLMAuthResponder {
    static let segments = ["auth"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 4, target.arguments[0] == "ntlm" else { return nil }
        self.init(user: target.arguments[1], password: target.arguments[2], domain: target.arguments[3])
    }
    var path: String {
        "/auth/ntlm/\(PercentCoding.encode(user))/\(PercentCoding.encode(password))/\(PercentCoding.encode(domain))"
    }
}
