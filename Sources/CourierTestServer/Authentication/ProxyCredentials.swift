/// The user name and password a ``TestServer`` acting as a proxy demands in
/// `Proxy-Authorization` (Basic or Digest).
public struct ProxyCredentials: Sendable, Hashable {
    /// The user name.
    public let user: String
    /// The password.
    public let password: String
    /// The scheme the proxy challenges with and accepts.
    public let scheme: Scheme

    /// The schemes a proxy can demand.
    public enum Scheme: Sendable, Hashable {
        /// `Proxy-Authenticate: Basic realm="Courier proxy"`.
        case basic
        /// `Proxy-Authenticate: Digest realm="Courier proxy", qop="auth", ...` (MD5, a new
        /// nonce per challenge, checked as ``Route/digestAuth(user:password:qop:stale:)`` checks).
        case digest
    }

    /// Creates proxy credentials.
    public init(user: String, password: String, scheme: Scheme = .basic) {
        self.user = user
        self.password = password
        self.scheme = scheme
    }
}
