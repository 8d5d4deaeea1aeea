import Foundation

/// A throwaway certificate authority and a server certificate it signed for `localhost` and
/// `127.0.0.1`, made with the `openssl` command in a directory of the test run's own.
struct TestCertificates {
    /// The CA certificate (PEM): the bundle a client verifies the server with.
    let caCertificate: URL
    /// The server certificate (PEM), subjectAltName `DNS:localhost, IP:127.0.0.1`.
    let serverCertificate: URL
    /// The server certificate's private key (PEM, unencrypted).
    let serverKey: URL

    /// Makes the CA and the server certificate in `directory` (P-256 keys, valid 30 days).
    /// - Throws: ``InteropServersError`` when openssl is missing or fails.
    init(in directory: URL) throws {
        let openssl = try ExternalTool.locate("openssl")
        let caKey = directory.appendingPathComponent("ca.key")
        caCertificate = directory.appendingPathComponent("ca.pem")
        serverKey = directory.appendingPathComponent("server.key")
        serverCertificate = directory.appendingPathComponent("server.pem")
        let request = directory.appendingPathComponent("server.csr")
        let extensions = directory.appendingPathComponent("server.ext")
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

        try ExternalTool.run(
            openssl,
            ["req", "-x509"] + newKey + [
                "-keyout", caKey.path, "-out", caCertificate.path, "-days", "30",
                "-subj", "/CN=Courier Interop Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ], in: directory)
        try ExternalTool.run(
            openssl,
            ["req", "-new"] + newKey + ["-keyout", serverKey.path, "-out", request.path, "-subj", "/CN=localhost"],
            in: directory)
        let serverExtensions = [
            "subjectAltName=DNS:localhost,IP:127.0.0.1", "basicConstraints=CA:FALSE",
            "keyUsage=critical,digitalSignature,keyEncipherment", "extendedKeyUsage=serverAuth",
        ]
        try (serverExtensions.joined(separator: "\n") + "\n").write(to: extensions, atomically: true, encoding: .utf8)
        try ExternalTool.run(
            openssl,
            [
                "x509", "-req", "-in", request.path, "-CA", caCertificate.path, "-CAkey", caKey.path,
                "-set_serial", "2", "-days", "30", "-extfile", extensions.path, "-out", serverCertificate.path,
            ], in: directory)
    }

    /// The certificates an earlier `init(in:)` made in `directory` (the interop servers').
    init(existingIn directory: URL) {
        caCertificate = directory.appendingPathComponent("ca.pem")
        serverKey = directory.appendingPathComponent("server.key")
        serverCertificate = directory.appendingPathComponent("server.pem")
    }
}
