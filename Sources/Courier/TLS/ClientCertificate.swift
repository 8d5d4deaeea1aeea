/// The identity a request presents when a TLS server asks for a client certificate
/// (`HTTPRequest.clientCertificate`): ASI's `setClientCertificateIdentity:`, from files.
///
/// The files are read by libcurl (OpenSSL) when a connection is made, not when the value is
/// made; a request whose file is missing or unreadable fails before anything is sent.
/// A value is immutable and can be used from any thread.
///
/// ```swift
/// request.clientCertificate = .pem(certificatePath: "me.pem", keyPath: "me.key", password: "secret")
/// request.clientCertificate = .pkcs12(path: "me.p12", password: "secret")
/// ```
///
/// `indirect`: the paths live in one box, so a request that has no certificate (or one) copies
/// a single pointer with each attempt's configuration.
public indirect enum ClientCertificate: Sendable, Hashable {
    /// A PEM certificate (`CURLOPT_SSLCERT`, type "PEM"), the chain after it if any, and its
    /// private key: in `keyPath` (`CURLOPT_SSLKEY`), or, when that is nil, in the certificate
    /// file itself. `password` decrypts an encrypted key (`CURLOPT_KEYPASSWD`); nil for a key in
    /// the clear (an encrypted key then fails: it is never asked for on the terminal).
    case pem(certificatePath: String, keyPath: String? = nil, password: String? = nil)
    /// A PKCS#12 bundle, certificate and key in one file (`CURLOPT_SSLCERT`, type "P12"),
    /// `password` its import password (nil: none).
    case pkcs12(path: String, password: String? = nil)

    /// The certificate file (the bundle, for PKCS#12).
    var certificatePath: String {
        switch self {
        case .pem(let path, _, _), .pkcs12(let path, _): return path
        }
    }

    /// The files libcurl reads: the certificate's, and the key's when it has its own.
    var filePaths: [String] {
        switch self {
        case .pem(let certificate, let key, _): return [certificate] + (key.map { [$0] } ?? [])
        case .pkcs12(let path, _): return [path]
        }
    }

    /// The password, if any.
    var password: String? {
        switch self {
        case .pem(_, _, let password), .pkcs12(_, let password): return password
        }
    }
}
