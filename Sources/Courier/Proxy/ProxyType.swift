/// The protocol spoken to the proxy set with `proxyHost` and `proxyPort` (ASI's `proxyType`,
/// which knew HTTP and SOCKS).
///
/// A proxy from the environment (`http_proxy`, `https_proxy`) speaks whatever its URL's scheme
/// says ("socks5://host:1080"); `proxyType` applies to `proxyHost` only.
public enum ProxyType: String, Sendable, Hashable, CaseIterable {
    /// A plain HTTP proxy: http URLs are sent to it in absolute form, https ones through a
    /// `CONNECT` tunnel, so the proxy sees only the host and port of an https origin.
    case http
    /// An HTTP proxy reached over TLS: the connection to the proxy itself is encrypted and the
    /// proxy's certificate is verified like a server's (`caBundlePath`,
    /// `validatesSecureCertificate` apply to it too).
    case https
    /// SOCKS4: the client resolves the host name and hands the proxy an IPv4 address.
    case socks4
    /// SOCKS4a: the proxy resolves the host name.
    case socks4a
    /// SOCKS5: the client resolves the host name; `proxyUsername`/`proxyPassword`, when set, go
    /// to the proxy as SOCKS5 user name and password (RFC 1929).
    case socks5
    /// SOCKS5 with the proxy resolving the host name ("socks5h"), so no DNS lookup of the
    /// origin happens on this machine.
    case socks5h

    /// The scheme of the proxy URL libcurl takes in `CURLOPT_PROXY`: it decides the proxy
    /// protocol, as `CURLOPT_PROXYTYPE` would.
    var scheme: String { rawValue }
}
