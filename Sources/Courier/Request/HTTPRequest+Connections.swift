import Foundation

/// TLS and connection settings.
extension HTTPRequest {
    /// Check the server's certificate and host name (true). False accepts any certificate: for
    /// development servers only.
    public var validatesSecureCertificate: Bool {
        get { read(\.config.validatesSecureCertificate) }
        set { write(\.config.validatesSecureCertificate, newValue) }
    }

    /// A PEM file of certificates to trust instead of the system's (`CURLOPT_CAINFO`).
    public var caBundlePath: String? {
        get { read(\.config.caBundlePath) }
        set { write(\.config.caBundlePath, newValue) }
    }

    /// The certificate and key presented when a TLS server asks for one (nil: none), as a PEM
    /// certificate and key or a PKCS#12 bundle (see ``ClientCertificate``). A missing or
    /// unreadable file fails the request before anything is sent; a wrong password, or a server
    /// that refuses the certificate, fails it with a message that says so. Connections and TLS
    /// sessions made with one identity are never reused for another, or for none. Set it before
    /// the request starts; any thread.
    public var clientCertificate: ClientCertificate? {
        get { read(\.config.clientCertificate) }
        set { write(\.config.clientCertificate, newValue) }
    }

    /// Reuse a kept-alive connection, and keep this one for others (true); false uses a new
    /// connection and closes it afterwards. Unlike ASI, requests with bodies are kept alive too.
    public var shouldAttemptPersistentConnection: Bool {
        get { read(\.config.shouldAttemptPersistentConnection) }
        set { write(\.config.shouldAttemptPersistentConnection, newValue) }
    }

    /// How long an idle connection may wait to be reused, in seconds (60; `CURLOPT_MAXAGE_CONN`):
    /// one idle that long or longer is not reused; libcurl counts whole seconds, so a fraction
    /// counts as the next whole second. As ASI, a response's `Keep-Alive: timeout=N` sets it to
    /// N, and later requests to the same scheme, host and port then reuse a connection idle for
    /// less than N seconds only, whatever their own setting (until a response from there comes
    /// without the header).
    public var persistentConnectionTimeoutSeconds: TimeInterval {
        get { read(\.config.persistentConnectionTimeoutSeconds) }
        set { write(\.config.persistentConnectionTimeoutSeconds, newValue) }
    }
}
