import Foundation

/// Digest access authentication with MD5 (RFC 7616, and RFC 2617 as libcurl speaks it):
/// challenges with a fresh nonce each, and the check of the response a client computes.
struct DigestAuthentication {
    /// The answer to a request's credentials.
    enum Verdict: Equatable {
        /// Right credentials and a nonce the server issued, unused at that count.
        case accepted
        /// Right credentials, but the stale-nonce mode declares the nonce stale (once per route).
        case stale
        /// No Digest credentials at all.
        case missing
        /// Digest credentials that do not verify, with why.
        case refused(String)
    }

    let user: String
    let password: String
    let realm: String
    /// `auth` or `auth-int`.
    let qop: String
    /// The route path nonces are issued for (its identity).
    let routePath: String
    /// Whether the first correct answer to a route gets `stale=true` instead of `200`.
    let staleOnce: Bool

    /// The `opaque` every challenge carries and every answer must return.
    static let opaque = HTTPAuthentication.md5Hex("CourierTestServer opaque")

    /// A challenge value with a new nonce, recorded in `server`'s nonce book.
    func challenge(on server: ServerCore, stale: Bool = false) -> String {
        var random = SystemRandomNumberGenerator()
        let nonce = (0..<4).map { _ in String(random.next() as UInt32, radix: 16) }.joined()
        server.withDigestNonces { book in book.entries[nonce] = DigestNonceBook.Entry(routePath: routePath) }
        return "Digest realm=\"\(realm)\", qop=\"\(qop)\", nonce=\"\(nonce)\", opaque=\"\(Self.opaque)\", "
            + "algorithm=MD5" + (stale ? ", stale=true" : "")
    }

    /// Checks a request's `Authorization` (or `Proxy-Authorization`) value.
    func verify(_ value: String?, method: String, target: String, body: Data, on server: ServerCore) -> Verdict {
        guard let (scheme, rest) = HTTPAuthentication.split(value), scheme.equalsIgnoringASCIICase("Digest") else {
            return .missing
        }
        let fields = HTTPAuthentication.parameters(rest)
        guard fields["username"] == user else { return .refused("unknown user") }
        guard fields["realm"] == realm else { return .refused("wrong realm") }
        guard let nonce = fields["nonce"] else { return .refused("no nonce") }
        // Through a proxy, libcurl names the origin-form path in uri, not the absolute target.
        guard let uri = fields["uri"], uri == target || uri == ServerCore.originForm(of: target) else {
            return .refused("uri is not the request-target")
        }
        guard fields["opaque"] == Self.opaque else { return .refused("opaque not returned") }
        guard fields["algorithm"].map({ $0.equalsIgnoringASCIICase("MD5") }) ?? true else {
            return .refused("algorithm is not MD5")
        }
        guard fields["qop"] == qop else { return .refused("qop is not \(qop)") }
        guard let ncText = fields["nc"], ncText.utf8.count == 8, let count = Int(ncText, radix: 16) else {
            return .refused("bad nc")
        }
        guard let cnonce = fields["cnonce"], !cnonce.isEmpty else { return .refused("no cnonce") }
        let ha1 = HTTPAuthentication.md5Hex("\(user):\(realm):\(password)")
        let ha2 =
            qop == "auth-int"
            ? HTTPAuthentication.md5Hex("\(method):\(uri):\(TestServer.md5Hex(of: body))")
            : HTTPAuthentication.md5Hex("\(method):\(uri)")
        let expected = HTTPAuthentication.md5Hex("\(ha1):\(nonce):\(ncText):\(cnonce):\(qop):\(ha2)")
        guard fields["response"]?.lowercased() == expected else { return .refused("wrong response") }
        let (routePath, staleOnce) = (self.routePath, self.staleOnce)
        return server.withDigestNonces { book -> Verdict in
            guard var entry = book.entries[nonce], entry.routePath == routePath, entry.valid else {
                return .refused("nonce not issued for this route")
            }
            guard count > entry.lastCount else { return .refused("nonce count reused") }
            entry.lastCount = count
            if staleOnce, !book.staleServed.contains(routePath) {
                book.staleServed.insert(routePath)
                entry.valid = false
                book.entries[nonce] = entry
                return .stale
            }
            book.entries[nonce] = entry
            return .accepted
        }
    }
}
