/// An HTTP authentication scheme Courier speaks (libcurl does the wire work: `CURLOPT_HTTPAUTH`).
///
/// The raw value is the token as a `WWW-Authenticate` challenge spells it and as
/// `authenticationScheme` reports it.
enum AuthenticationMethod: String, Sendable, Hashable, CaseIterable {
    case basic = "Basic"
    case digest = "Digest"
    case ntlm = "NTLM"

    /// The method a challenge's scheme token names, ignoring case ("basic", "DIGEST"); nil for one
    /// Courier does not speak (Negotiate, Bearer).
    init?(token: String) {
        let lowered = token.lowercased()
        guard let method = Self.allCases.first(where: { $0.rawValue.lowercased() == lowered }) else { return nil }
        self = method
    }

    /// True when the password itself crosses the wire, readable by anyone on the path unless TLS
    /// protects it: the terminal dialog warns about it, as ASI's did.
    var sendsPasswordInClear: Bool { self == .basic }
}
