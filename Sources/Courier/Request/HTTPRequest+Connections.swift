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

    /// Reuse a kept-alive connection, and keep this one for others (true); false uses a new
    /// connection and closes it afterwards. Unlike ASI, requests with bodies are kept alive too.
    public var shouldAttemptPersistentConnection: Bool {
        get { read(\.config.shouldAttemptPersistentConnection) }
        set { write(\.config.shouldAttemptPersistentConnection, newValue) }
    }

    /// How long an idle connection may wait to be reused, in seconds (60; `CURLOPT_MAXAGE_CONN`).
    public var persistentConnectionTimeoutSeconds: TimeInterval {
        get { read(\.config.persistentConnectionTimeoutSeconds) }
        set { write(\.config.persistentConnectionTimeoutSeconds, newValue) }
    }
}
