import Foundation

/// The `Authorization: Digest` value (RFC 7616) that answers a challenge an earlier attempt of the
/// request received.
///
/// libcurl answers only a Digest challenge it met in the same transfer: given credentials for the
/// attempt after a 401, it would first send the request again without them to be challenged anew,
/// a round trip (and a body) too many. So the attempt after a Digest challenge carries this value
/// as a header line, and libcurl is given no credentials for it. Whatever this does not speak is
/// left to libcurl as before: `value` is nil then.
enum DigestAuthorization {
    /// The value answering `challenge` with `credential` for a request of `method` to `uri` (its
    /// request-target), or nil when the challenge asks for what is left to libcurl: an algorithm
    /// other than MD5, SHA-256 and their `-sess` forms, `userhash`, or only `auth-int` for a
    /// request with a body (libcurl 7.88 hashes an empty body there, too).
    static func value(
        answering challenge: AuthenticationChallenge, credential: StoredCredential, method: String, uri: String,
        hasBody: Bool, clientNonce: String = newClientNonce()
    ) -> String? {
        let parameters = challenge.parameters
        guard let realm = challenge.realm, let nonce = parameters["nonce"],
            parameters["userhash"]?.lowercased() != "true",
            !RequestValidation.hasLineBreakOrNUL(credential.user),
            !RequestValidation.hasLineBreakOrNUL(credential.password)
        else { return nil }
        let algorithmName = parameters["algorithm"]
        let hash: (String) -> String
        let isSession: Bool
        switch algorithmName?.lowercased() ?? "md5" {
        case "md5": (hash, isSession) = (MD5.hexDigest, false)
        case "md5-sess": (hash, isSession) = (MD5.hexDigest, true)
        case "sha-256": (hash, isSession) = ({ SHA256.hexDigest($0.utf8) }, false)
        case "sha-256-sess": (hash, isSession) = ({ SHA256.hexDigest($0.utf8) }, true)
        default: return nil
        }
        // RFC 2069's challenge has no qop; RFC 7616's offers one or both.
        let qop: String?
        if let offered = parameters["qop"] {
            let options = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if options.contains("auth") {
                qop = "auth"
            } else if options.contains("auth-int"), !hasBody {
                qop = "auth-int"
            } else {
                return nil
            }
        } else {
            qop = nil
        }
        // The first answer to this nonce: each challenge is answered once, by the next attempt.
        let count = "00000001"
        var ha1 = hash("\(credential.user):\(realm):\(credential.password)")
        if isSession { ha1 = hash("\(ha1):\(nonce):\(clientNonce)") }
        let ha2 = qop == "auth-int" ? hash("\(method):\(uri):\(hash(""))") : hash("\(method):\(uri)")
        let response =
            qop.map { hash("\(ha1):\(nonce):\(count):\(clientNonce):\($0):\(ha2)") } ?? hash("\(ha1):\(nonce):\(ha2)")
        var fields = [
            "username=" + quoted(credential.user), "realm=" + quoted(realm), "nonce=" + quoted(nonce),
            "uri=" + quoted(uri),
        ]
        if qop != nil || isSession { fields.append("cnonce=" + quoted(clientNonce)) }
        if let qop { fields += ["nc=" + count, "qop=" + qop] }
        fields.append("response=" + quoted(response))
        if let opaque = parameters["opaque"] { fields.append("opaque=" + quoted(opaque)) }
        if let algorithmName { fields.append("algorithm=" + algorithmName) }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// The request-target libcurl sends for `url`, which the answer must name; nil when libcurl
    /// would rewrite the path (dot segments), so only libcurl can name it.
    static func requestURI(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        let path = components.percentEncodedPath
        if path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == "." || $0 == ".." }) {
            return nil
        }
        let target = path.isEmpty ? "/" : path
        return components.percentEncodedQuery.map { target + "?" + $0 } ?? target
    }

    /// 16 random bytes in hex: the client's nonce for one answer.
    static func newClientNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let word = generator.next() as UInt64
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }

    /// A quoted-string (RFC 9110 §5.6.4): backslash and double quote escaped.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            if character == "\\" || character == "\"" { result.append("\\") }
            result.append(character)
        }
        return result + "\""
    }
}
