/// The `CURLOPT_SSLCERT` string each client identity is given, so that libcurl tells every
/// identity apart when it reuses a connection or resumes a TLS session.
///
/// libcurl 7.88 matches a pooled connection and a cached TLS session by the certificate's path
/// alone (lib/vtls/vtls.c, `Curl_ssl_config_matches` compares `clientcert`, never the key, its
/// password or the certificate type). Two identities with one certificate file, say the right
/// password and then a wrong one, would share a connection: the wrong password would "work"
/// while an earlier connection lived, and fail otherwise. So the first identity seen for a path
/// is given the path as it is, and each further one the same file spelt differently, with a
/// "./" more before the file name ("/certs/./me.pem", "/certs/././me.pem"): libcurl then keeps
/// their connections and sessions apart, and OpenSSL opens the same file.
///
/// Identities are remembered for the life of the process: as many as a program uses, which is
/// a handful. Leaf lock (see `Locked`); taken when a handle's profile is applied, not for every
/// transfer.
enum ClientCertificatePaths {
    private static let seen = Locked<[String: [ClientCertificate]]>([:])

    /// The path to give libcurl for `certificate`.
    static func curlPath(for certificate: ClientCertificate) -> String {
        let path = certificate.certificatePath
        let index = seen.withLock { seen -> Int in
            if let index = seen[path]?.firstIndex(of: certificate) { return index }
            seen[path, default: []].append(certificate)
            return seen[path]!.count - 1
        }
        guard index > 0 else { return path }
        let fileStart = path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex
        return String(path[..<fileStart]) + String(repeating: "./", count: index) + path[fileStart...]
    }
}
