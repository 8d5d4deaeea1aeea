import Foundation

/// Client identities for the TLS client-certificate tests, made with `openssl` in the test run's
/// directory (never committed): a client CA nginx trusts, identity A (PEM certificate, encrypted
/// PEM key), identity B (a password-protected PKCS#12 bundle) and a rogue identity signed by a CA
/// nobody trusts (certificate and key in the clear, in one PEM file).
struct ClientTestCertificates {
    /// The CA that signed A and B (PEM): nginx's `ssl_client_certificate`.
    let clientCA: URL
    /// Identity A's certificate, subject `CN=Courier Client A`.
    let certificateA: URL
    /// Identity A's private key, encrypted (PKCS#8, AES-256) with ``passwordA``.
    let keyA: URL
    let passwordA = "courier-secret-a"
    /// Identity B as a PKCS#12 bundle (certificate and key), subject `CN=Courier Client B`.
    let bundleB: URL
    let passwordB = "courier-secret-b"
    /// A certificate and its key in one file, signed by another CA: `CN=Courier Rogue Client`.
    let rogue: URL

    static let subjectA = "CN=Courier Client A"
    static let subjectB = "CN=Courier Client B"
    static let subjectRogue = "CN=Courier Rogue Client"

    /// Makes the CAs and identities in `directory` (P-256 keys, valid 30 days).
    /// - Throws: ``InteropServersError`` when openssl fails.
    init(in directory: URL) throws {
        let openssl = try ExternalTool.locate("openssl")
        func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
        clientCA = file("client-ca.pem")
        certificateA = file("client-a.pem")
        keyA = file("client-a.key")
        bundleB = file("client-b.p12")
        rogue = file("client-rogue.pem")
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        let extensions = file("client.ext")
        try "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n".write(
            to: extensions, atomically: true, encoding: .utf8)

        func makeCA(_ name: String, subject: String) throws -> (certificate: URL, key: URL) {
            let (certificate, key) = (file("\(name).pem"), file("\(name).key"))
            try ExternalTool.run(
                openssl,
                ["req", "-x509"] + newKey + [
                    "-nodes", "-keyout", key.path, "-out", certificate.path, "-days", "30", "-subj", subject,
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ], in: directory)
            return (certificate, key)
        }
        /// A certificate for `subject` signed by `ca`, its key encrypted with `password` (nil: clear).
        func makeIdentity(
            _ name: String, subject: String, ca: (certificate: URL, key: URL), serial: Int, password: String?
        ) throws -> (certificate: URL, key: URL) {
            let (certificate, key, request) = (file("\(name).pem"), file("\(name).key"), file("\(name).csr"))
            let protection = password.map { ["-passout", "pass:\($0)"] } ?? ["-nodes"]
            try ExternalTool.run(
                openssl,
                ["req", "-new"] + newKey + protection + [
                    "-keyout", key.path, "-out", request.path, "-subj", "/" + subject,
                ], in: directory)
            try ExternalTool.run(
                openssl,
                [
                    "x509", "-req", "-in", request.path, "-CA", ca.certificate.path, "-CAkey", ca.key.path,
                    "-set_serial", String(serial), "-days", "30", "-extfile", extensions.path,
                    "-out", certificate.path,
                ], in: directory)
            return (certificate, key)
        }

        let trusted = try makeCA("client-ca", subject: "/CN=Courier Interop Client CA")
        let untrusted = try makeCA("rogue-ca", subject: "/CN=Courier Rogue CA")
        _ = try makeIdentity("client-a", subject: Self.subjectA, ca: trusted, serial: 10, password: passwordA)
        let b = try makeIdentity("client-b", subject: Self.subjectB, ca: trusted, serial: 11, password: nil)
        // OpenSSL 3's defaults (AES-256-CBC, PBKDF2, SHA-256 MAC): libcurl's OpenSSL 3 reads them;
        // `-legacy` would only be needed for an OpenSSL 1.x reader.
        try ExternalTool.run(
            openssl,
            [
                "pkcs12", "-export", "-in", b.certificate.path, "-inkey", b.key.path, "-passout", "pass:\(passwordB)",
                "-out", bundleB.path,
            ], in: directory)
        let rogueParts = try makeIdentity(
            "client-rogue-parts", subject: Self.subjectRogue, ca: untrusted, serial: 12, password: nil)
        let combined =
            try String(contentsOf: rogueParts.certificate, encoding: .utf8)
            + String(contentsOf: rogueParts.key, encoding: .utf8)
        try combined.write(to: rogue, atomically: true, encoding: .utf8)
    }
}
