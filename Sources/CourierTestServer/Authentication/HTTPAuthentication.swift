import Foundation

/// What the authentication routes share: reading `Authorization` values, Basic, and the
/// counted `401`.
enum HTTPAuthentication {
    /// The realm of the authentication routes unless a route says otherwise.
    static let defaultRealm = "Courier"

    /// The per-key counter (see ``ServerCore/nextHit(forKey:)``) of challenges sent for a route.
    static func challengeKey(forRoutePath path: String) -> String { "challenges " + path }

    /// Splits a credentials value (`Basic dXNlcjpwYXNz`) into its scheme and the rest,
    /// or nil if there is none.
    static func split(_ value: String?) -> (scheme: String, rest: String)? {
        guard let value = value.map({ Substring($0).trimmingHTTPWhitespace() }), !value.isEmpty else { return nil }
        guard let space = value.firstIndex(of: " ") else { return (String(value), "") }
        return (String(value[..<space]), String(value[value.index(after: space)...].trimmingHTTPWhitespace()))
    }

    /// The user and password of a `Basic` credentials value, or nil if it is not Basic
    /// or not valid base64 of `user:password`.
    static func basicCredentials(_ value: String?) -> (user: String, password: String)? {
        guard let (scheme, rest) = split(value), scheme.equalsIgnoringASCIICase("Basic"),
            let decoded = Data(base64Encoded: rest), let text = String(data: decoded, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The value of a Basic challenge, `Basic realm="<realm>"`.
    static func basicChallenge(realm: String) -> String {
        "Basic realm=\"\(realm)\""
    }

    /// The 32 lowercase hex digits of the MD5 of `text`'s UTF-8 bytes.
    static func md5Hex(_ text: String) -> String {
        TestServer.md5Hex(of: Data(text.utf8))
    }

    /// The `name=value` parameters of a Digest credentials or challenge value, names
    /// lowercased, quoted values unquoted (RFC 7616 §3.4; commas inside quotes kept).
    static func parameters(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var scalars = Substring(text).unicodeScalars[...]
        func skip(_ set: String) {
            while let first = scalars.first, set.unicodeScalars.contains(first) { scalars.removeFirst() }
        }
        while true {
            skip(" \t,")
            guard !scalars.isEmpty else { break }
            var name = ""
            while let first = scalars.first, first != "=", first != ",", first != " " {
                name.unicodeScalars.append(scalars.removeFirst())
            }
            skip(" \t")
            guard scalars.first == "=" else { continue }
            scalars.removeFirst()
            skip(" \t")
            var value = ""
            if scalars.first == "\"" {
                scalars.removeFirst()
                while let first = scalars.first, first != "\"" {
                    scalars.removeFirst()
                    value.unicodeScalars.append(first == "\\" && !scalars.isEmpty ? scalars.removeFirst() : first)
                }
                if !scalars.isEmpty { scalars.removeFirst() }
            } else {
                while let first = scalars.first, first != ",", first != " " {
                    value.unicodeScalars.append(scalars.removeFirst())
                }
            }
            result[name.lowercased()] = value
        }
        return result
    }
}

extension Exchange {
    /// Answers `401` with these challenges (one `WWW-Authenticate` field each) and a text body,
    /// and counts it for ``TestServer/challengesSent(for:)``.
    func challenge(_ challenges: [String], text: String, routePath: String) throws {
        _ = server.nextHit(forKey: HTTPAuthentication.challengeKey(forRoutePath: routePath))
        try respond(
            status: 401, text: text, headers: challenges.map { HeaderField(name: "WWW-Authenticate", value: $0) })
    }

    /// Answers `200` for an authenticated request: the text body, and
    /// `X-Courier-Auth-Scheme: <scheme>` saying which scheme the client used.
    func authenticated(scheme: String, text: String) throws {
        try respond(status: 200, text: text, headers: [HeaderField(name: "X-Courier-Auth-Scheme", value: scheme)])
    }
}
