import CCurl

/// The libcurl options that stay the same from one transfer to the next for most requests: the
/// safety defaults, callbacks, TLS and connection settings.
///
/// A pooled handle remembers the profile it holds (`EasyHandle.options`); the next transfer with
/// the same profile sets only its own options (URL, headers, context, body). That skips
/// `curl_easy_reset` and about fifteen `curl_easy_setopt` calls, a tenth of what a small GET
/// costs. libcurl is built for this reuse: an easy handle keeps its options between transfers.
struct HandleProfile: Equatable {
    /// The share handle: with or without the shared cookie jar.
    var share: UnsafeMutableRawPointer
    var usesCookieEngine: Bool
    var caBundlePath: String?
    var verifiesCertificate: Bool
    /// Part of the profile so a handle set up with one identity is reset before a transfer with
    /// another or none: libcurl keeps `CURLOPT_SSLCERT` and the rest between transfers.
    var clientCertificate: ClientCertificate?
    var reusesConnections: Bool
    var connectionMaxAge: Int
    /// `CURLOPT_CONNECTTIMEOUT_MS`; 0 for libcurl's default. Part of the profile, so a handle
    /// set up with a limit is reset before a transfer without one.
    var connectTimeoutMilliseconds: Int
    /// `CURLOPT_PIPEWAIT`, for https only.
    var waitsForMultiplexing: Bool
    var usesHTTP10: Bool
    /// `CURLOPT_BUFFERSIZE`: see `TransferConfiguration.receiveBufferSize`.
    var receiveBufferSize: Int
    /// `CURLOPT_PATH_AS_IS`: see `TransferConfiguration.sendsPathAsIs`.
    var sendsPathAsIs: Bool

    init(_ config: borrowing TransferConfiguration, share: UnsafeMutableRawPointer) {
        self.share = share
        usesCookieEngine = config.usesCookieEngine
        caBundlePath = config.caBundlePath
        verifiesCertificate = config.verifiesCertificate
        clientCertificate = config.clientCertificate
        reusesConnections = config.reusesConnections
        connectionMaxAge = config.connectionMaxAge
        // At least 1 ms: 0 would mean libcurl's default, not "no time at all".
        connectTimeoutMilliseconds =
            config.connectTimeout > 0 ? max(1, Int((config.connectTimeout * 1000).rounded())) : 0
        // Wait for a TLS connection being set up to offer HTTP/2 multiplexing instead of opening
        // another beside it. Never for plain http: there a busy HTTP/1.1 connection would hold
        // back every other request to the host.
        waitsForMultiplexing = config.reusesConnections && config.url.hasPrefixIgnoringASCIICase("https:")
        usesHTTP10 = config.usesHTTP10
        receiveBufferSize = config.receiveBufferSize
        sendsPathAsIs = config.sendsPathAsIs
    }

    /// Sets every option of the profile on a handle in its fresh state.
    func apply(to handle: EasyHandle) throws {
        // Safety and threading defaults libcurl does not have on its own.
        try handle.set(CURLOPT_NOSIGNAL, true)
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Courier follows redirects itself, to apply ASI's method and credential rules.
        try handle.set(CURLOPT_FOLLOWLOCATION, false)
        try handle.set(CURLOPT_BUFFERSIZE, receiveBufferSize)
        try handle.set(CURLOPT_SHARE, pointer: share)
        if usesCookieEngine, !handle.hasCookieEngine {
            // An empty file name turns on libcurl's in-memory cookie engine; the share handle
            // makes the jar one for all transfers (CURLOPT_COOKIEFILE, CURLOPT_SHARE). Once per
            // handle: the engine outlives curl_easy_reset (`EasyHandle.hasCookieEngine`), and a
            // transfer with the share without cookies neither sends nor stores any.
            try handle.set(CURLOPT_COOKIEFILE, "")
            handle.hasCookieEngine = true
        }
        try handle.set(CURLOPT_HEADERFUNCTION, callback: TransferCallbacks.header)
        try handle.set(CURLOPT_WRITEFUNCTION, callback: TransferCallbacks.write)

        // An HTTPS proxy's certificate is checked as the server's is, against the same bundle:
        // `caBundlePath` and `validatesSecureCertificate` are the request's one TLS trust
        // setting (ASI had no other), and a proxy is trusted no further than an origin.
        if let caBundlePath {
            try handle.set(CURLOPT_CAINFO, caBundlePath)
            try handle.set(CURLOPT_PROXY_CAINFO, caBundlePath)
        }
        if !verifiesCertificate {
            try handle.set(CURLOPT_SSL_VERIFYPEER, false)
            try handle.set(CURLOPT_SSL_VERIFYHOST, 0)
            try handle.set(CURLOPT_PROXY_SSL_VERIFYPEER, false)
            try handle.set(CURLOPT_PROXY_SSL_VERIFYHOST, 0)
        }
        if connectTimeoutMilliseconds > 0 { try handle.set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds) }
        if let clientCertificate { try Self.apply(clientCertificate, to: handle) }
        if reusesConnections {
            try handle.set(CURLOPT_MAXAGE_CONN, connectionMaxAge)
            if waitsForMultiplexing { try handle.set(CURLOPT_PIPEWAIT, true) }
        } else {
            try handle.set(CURLOPT_FRESH_CONNECT, true)
            try handle.set(CURLOPT_FORBID_REUSE, true)
        }
        if usesHTTP10 {
            try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_0))
        }
        if sendsPathAsIs { try handle.set(CURLOPT_PATH_AS_IS, true) }
    }

    /// The identity. libcurl's connection cache and TLS session cache tell identities apart by
    /// `CURLOPT_SSLCERT`'s string (lib/vtls/vtls.c, Curl_ssl_config_matches compares
    /// `clientcert`), so a connection or session made with one is never reused for another or
    /// for none; `ClientCertificatePaths` gives each identity a string of its own.
    private static func apply(_ certificate: ClientCertificate, to handle: EasyHandle) throws {
        try handle.set(CURLOPT_SSLCERT, ClientCertificatePaths.curlPath(for: certificate))
        switch certificate {
        case .pem(_, let keyPath, _):
            try handle.set(CURLOPT_SSLCERTTYPE, "PEM")
            // Without CURLOPT_SSLKEY libcurl reads the key from the certificate file.
            if let keyPath { try handle.set(CURLOPT_SSLKEY, keyPath) }
        case .pkcs12:
            try handle.set(CURLOPT_SSLCERTTYPE, "P12")
        }
        // Always set, "" when there is none: without CURLOPT_KEYPASSWD libcurl installs no
        // password callback and OpenSSL asks for an encrypted key's pass phrase on /dev/tty,
        // blocking the engine thread ("Enter PEM pass phrase:").
        try handle.set(CURLOPT_KEYPASSWD, certificate.password ?? "")
    }
}
