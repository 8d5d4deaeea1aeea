import CCurl
import Foundation

/// Messages for TLS failures that come from the client certificate: libcurl (OpenSSL) reports a
/// wrong password, a file it cannot parse and a server's refusal in terms of OpenSSL's calls
/// ("unable to set private key file", "tlsv13 alert certificate required"); these say which it
/// was, with libcurl's text after.
extension CurlErrorMapping {
    /// The message for `code` with libcurl's `text` when the client certificate (or its absence)
    /// caused it, or nil when it did not. Engine thread, after a transfer failed.
    static func clientCertificateMessage(for code: CURLcode, text: String, certificate: ClientCertificate?) -> String? {
        if code == CURLE_SSL_CERTPROBLEM, let certificate {
            return "TLS client certificate problem: " + problem(of: certificate, text: text) + " (\(text))"
        }
        // A refusal comes as a TLS alert: during the handshake with TLS 1.2
        // (CURLE_SSL_CONNECT_ERROR), at the first read with TLS 1.3, whose client finishes its
        // side of the handshake before the server has checked the certificate (CURLE_RECV_ERROR).
        guard code == CURLE_SSL_CONNECT_ERROR || code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR,
            let alert = certificateAlert(in: text)
        else { return nil }
        let refusal: String
        if let certificate {
            refusal = "the server refused the client certificate \(certificate.certificatePath) (\(alert))"
        } else if alert == "certificate required" {
            refusal = "the server requires a client certificate, and the request has none (clientCertificate)"
        } else {
            refusal = "the server refused the connection without a client certificate (\(alert))"
        }
        return "TLS: " + refusal + ": " + text
    }

    /// The alerts a server sends about the client's certificate (RFC 8446 §6.2), as OpenSSL
    /// names them in "tlsv13 alert certificate required", "tlsv1 alert unknown ca".
    private static let certificateAlerts = [
        "certificate required", "unknown ca", "bad certificate", "certificate unknown", "unsupported certificate",
        "certificate revoked", "certificate expired", "access denied",
    ]

    private static func certificateAlert(in text: String) -> String? {
        let lowered = text.lowercased()
        return certificateAlerts.first { lowered.contains("alert " + $0) }
    }

    /// What OpenSSL could not do with `certificate`, from libcurl's text (lib/vtls/openssl.c,
    /// `cert_stuff`).
    private static func problem(of certificate: ClientCertificate, text: String) -> String {
        switch certificate {
        case .pkcs12(let path, let password):
            // libcurl says "could not parse PKCS12 file, check password" when PKCS12_parse fails
            // on a bundle it could read ("mac verify failure", "bad decrypt"), and "error reading
            // PKCS12 file" for a file that is no bundle.
            if text.contains("could not parse PKCS12") || text.contains("mac verify failure") {
                return password == nil
                    ? "the PKCS#12 file \(path) needs a password, and none was given"
                    : "wrong password for the PKCS#12 file \(path)"
            }
            return "\(path) is not a PKCS#12 file OpenSSL can read"
        case .pem(let certificatePath, let keyPath, let password):
            let key = keyPath ?? certificatePath
            if text.contains("does not match") {
                return "the key \(key) does not belong to the certificate \(certificatePath)"
            }
            if text.contains("private key") {
                // OpenSSL says the same for a wrong password and for a file that holds no key.
                guard isEncryptedPEM(key) else { return "\(key) holds no PEM private key OpenSSL can read" }
                return password == nil
                    ? "the key \(key) is encrypted and needs a password, and none was given"
                    : "wrong password for the key \(key)"
            }
            return "\(certificatePath) holds no PEM certificate OpenSSL can read"
        }
    }

    /// Whether the PEM file at `path` holds an encrypted private key: PKCS#8's "BEGIN ENCRYPTED
    /// PRIVATE KEY", or OpenSSL's traditional "Proc-Type: 4,ENCRYPTED".
    private static func isEncryptedPEM(_ path: String) -> Bool {
        guard let file = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? file.close() }
        // A key is a few KiB; a chain before it rarely more than a few dozen.
        let head = (try? file.read(upToCount: 256 * 1024)) ?? Data()
        let text = String(decoding: head, as: UTF8.self)
        return text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") || text.contains("Proc-Type: 4,ENCRYPTED")
    }
}
