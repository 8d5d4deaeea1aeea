import Foundation

/// Where a server's credentials apply: scheme, host, port, realm and authentication method, the
/// key ASI's session store and keychain used (NSURLProtectionSpace).
///
/// The host is lower-cased and the port always explicit: "http://Example.com/" and
/// "http://example.com:80/" are the same space (ASI's testNilPortCredentialsMatching).
struct ProtectionSpace: Sendable, Hashable {
    /// "http" or "https".
    var scheme: String
    var host: String
    var port: Int
    /// The challenge's realm; nil when none is known yet (before the first challenge).
    var realm: String?
    /// The method the credentials worked with; nil when not known.
    var method: AuthenticationMethod?

    /// A space for `scheme`, `host` and `port`; a port of 0 or below means the scheme's default, as
    /// NSURLProtectionSpace's port 0 did. Nil for a scheme other than http and https.
    init?(scheme: String, host: String, port: Int?, realm: String?, method: AuthenticationMethod?) {
        let scheme = scheme.lowercased()
        guard let defaultPort = Self.defaultPort(for: scheme), !host.isEmpty else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = port.flatMap { $0 > 0 ? $0 : nil } ?? defaultPort
        self.realm = realm
        self.method = method
    }

    /// The space of the server `url` points at; nil for a URL without an http(s) scheme or host.
    init?(url: URL, realm: String? = nil, method: AuthenticationMethod? = nil) {
        guard let scheme = url.scheme, let host = url.host else { return nil }
        self.init(scheme: scheme, host: host, port: url.port, realm: realm, method: method)
    }

    /// True when both name the same server: scheme, host and port (realm and method aside).
    func isSameServer(as other: ProtectionSpace) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }

    static func defaultPort(for scheme: String) -> Int? {
        switch scheme.lowercased() {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}

/// Where a proxy's credentials apply: the proxy's host, port and realm (ASI's session proxy store
/// was keyed by proxy host and port).
struct ProxyProtectionSpace: Sendable, Hashable {
    var host: String
    var port: Int
    var realm: String?
    var method: AuthenticationMethod?

    init(host: String, port: Int, realm: String?, method: AuthenticationMethod? = nil) {
        self.host = host.lowercased()
        self.port = port
        self.realm = realm
        self.method = method
    }
}
