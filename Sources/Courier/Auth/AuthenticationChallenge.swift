/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110 §11.6.1): its
/// scheme and the parameters Courier acts on.
///
/// A field may hold several challenges (`Basic realm="a", Digest realm="a", nonce="…"`), and a
/// response several fields; `parse` reads them all, in order.
struct AuthenticationChallenge: Sendable, Equatable {
    /// The scheme token as the server spelled it ("Basic", "Digest", "Negotiate").
    var scheme: String
    /// The realm, unquoted; nil when the challenge has none (NTLM).
    var realm: String?
    /// Digest's `stale=true`: the credentials were right but the nonce had expired.
    var isStale = false
    /// Every parameter, by lowercased name, unquoted: what a Digest answer is computed from.
    var parameters: [String: String] = [:]

    /// The method Courier speaks for this challenge; nil for one it does not (Negotiate, Bearer).
    var method: AuthenticationMethod? { AuthenticationMethod(token: scheme) }

    /// The challenges in the fields' values, in order. Unparsable pieces are skipped.
    static func parse(_ values: [String]) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        for value in values {
            for element in splitElements(value) {
                // A new challenge starts with a token that is not a parameter's name. A parameter
                // is one word before its "=": its quoted value may hold spaces (qop="auth, auth-int").
                if isParameter(element) {
                    if !challenges.isEmpty { apply(parameter: element, to: &challenges[challenges.count - 1]) }
                    continue
                }
                let (head, rest) = splitFirstWord(element)
                var challenge = AuthenticationChallenge(scheme: head)
                if let rest, rest.contains("=") { apply(parameter: rest, to: &challenge) }
                challenges.append(challenge)
            }
        }
        return challenges
    }

    /// The challenge Courier answers when a server offers several: the strongest method it
    /// speaks, in libcurl's order of preference (Digest, NTLM, Basic).
    static func strongest(in challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        let order: [AuthenticationMethod] = [.digest, .ntlm, .basic]
        for method in order {
            if let challenge = challenges.first(where: { $0.method == method }) { return challenge }
        }
        return nil
    }

    private static func apply(parameter: String, to challenge: inout AuthenticationChallenge) {
        guard let equals = parameter.firstIndex(of: "=") else { return }
        let name = parameter[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        let value = unquoted(parameter[parameter.index(after: equals)...].trimmingCharacters(in: .whitespaces))
        challenge.parameters[name] = value
        switch name {
        case "realm": challenge.realm = value
        case "stale": challenge.isStale = value.lowercased() == "true"
        default: break
        }
    }

    private static func isParameter(_ element: String) -> Bool {
        guard let equals = element.firstIndex(of: "=") else { return false }
        return !element[..<equals].trimmingCharacters(in: .whitespaces).contains { $0 == " " || $0 == "\t" }
    }

    /// Splits at commas outside quoted strings, trimming spaces; empty elements are dropped.
    private static func splitElements(_ value: String) -> [String] {
        var elements: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && inQuotes {
                current.append(character)
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
                current.append(character)
            } else if character == "," && !inQuotes {
                elements.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        elements.append(current)
        return elements.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The first word and what follows the spaces after it (nil when nothing does).
    private static func splitFirstWord(_ element: String) -> (String, String?) {
        guard let space = element.firstIndex(of: " ") else { return (element, nil) }
        let rest = element[space...].trimmingCharacters(in: .whitespaces)
        return (String(element[..<space]), rest.isEmpty ? nil : rest)
    }

    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}
