/// What the terminal dialog tells the user and what it asks for.
struct AuthenticationPrompt: Sendable, Equatable {
    /// The server (or proxy) asking, as the user knows it.
    var host: String
    var port: Int
    /// The challenge's realm, shown so the user knows which password is wanted.
    var realm: String?
    /// True for a 407 from a proxy (`shouldPresentProxyAuthenticationDialog`).
    var isProxy: Bool
    /// True for NTLM: the dialog asks for the domain too.
    var asksForDomain: Bool
    /// True when the password would cross the network readable (Basic without TLS): the dialog
    /// warns, as ASI's did ("Password will be sent in the clear.").
    var sendsPasswordInClear: Bool

    init(
        host: String, port: Int, realm: String?, isProxy: Bool = false, asksForDomain: Bool = false,
        sendsPasswordInClear: Bool
    ) {
        self.host = host
        self.port = port
        self.realm = realm
        self.isProxy = isProxy
        self.asksForDomain = asksForDomain
        self.sendsPasswordInClear = sendsPasswordInClear
    }

    /// The prompt for a challenge from `space` (a server) answered with `method`.
    init(server space: ProtectionSpace, method: AuthenticationMethod) {
        self.init(
            host: space.host, port: space.port, realm: space.realm, asksForDomain: method == .ntlm,
            sendsPasswordInClear: method.sendsPasswordInClear && space.scheme != "https")
    }

    /// The lines shown before the questions.
    var introduction: String {
        var lines = [(isProxy ? "Login to this proxy server: " : "Login to this server: ") + "\(host):\(port)"]
        if let realm, !realm.isEmpty { lines.append("Realm: \"\(Self.printable(realm))\"") }
        lines.append(
            sendsPasswordInClear
                ? "Warning: the password will be sent in the clear (Basic authentication without TLS)."
                : "The password will be sent securely.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A server-chosen realm without control characters, so it cannot drive the user's terminal.
    private static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }
}
