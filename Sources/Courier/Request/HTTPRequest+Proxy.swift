import Foundation

/// The protocol of the proxy a request goes through.
extension HTTPRequest {
    /// What the proxy set with `proxyHost` and `proxyPort` speaks (`.http`). Ignored when
    /// `proxyHost` is nil: a proxy from the environment speaks its URL's scheme. With `pacURL`
    /// and no host set, it reads as the kind of proxy the PAC file chose for the last attempt
    /// (its SOCKS5 is `.socks5h`; unchanged for DIRECT). Any thread.
    ///
    /// An http origin goes to an HTTP proxy in absolute form; an https origin through a
    /// `CONNECT` tunnel, inside which TLS runs end to end with the origin. The proxy credentials
    /// (`proxyUsername`, `proxyPassword`) go to the proxy only, never into the tunnel or to an
    /// origin. A proxy that cannot be reached fails the request with `connectionFailure`; the
    /// request never goes direct instead.
    public var proxyType: ProxyType {
        get { state.withLock { Self.reportedProxy(&$0).type } }
        set { write(\.config.auth.proxyType, newValue) }
    }
}
