import Foundation

extension NginxConfiguration {
    /// What the client-certificate listeners answer: who nginx saw. `verify` is
    /// `$ssl_client_verify` (SUCCESS, FAILED:reason or NONE), `subject` the certificate's subject
    /// (empty for none), `connection` nginx's connection serial number, `reused` "r" when the TLS
    /// session was resumed ("." otherwise).
    static let clientIdentityBody =
        "verify=$ssl_client_verify\\nsubject=$ssl_client_s_dn\\nconnection=$connection\\nreused=$ssl_session_reused\\n"

    /// Two TLS listeners that ask for a client certificate signed by the client CA: one that
    /// requires it (`ssl_verify_client on`: nginx finishes the handshake and answers 400 without a
    /// valid one) and one for which it is optional, to see which identity a request presented.
    var clientCertificateServers: String {
        [(clientCertificatePort, "on"), (optionalClientCertificatePort, "optional")].map { port, mode in
            """
            server {
                    listen 127.0.0.1:\(port) ssl http2;
                    server_name localhost 127.0.0.1;
                    ssl_certificate \(certificates.serverCertificate.path);
                    ssl_certificate_key \(certificates.serverKey.path);
                    ssl_client_certificate \(clientCertificates.clientCA.path);
                    ssl_verify_client \(mode);
                    # nginx's default (none) resumes no TLS session; the identity tests need some.
                    ssl_session_cache shared:courier_client_tls:1m;
                    location / {
                        default_type text/plain;
                        return 200 "\(Self.clientIdentityBody)";
                    }
                }
            """
        }.joined(separator: "\n    ")
    }
}
