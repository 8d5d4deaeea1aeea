import Foundation

extension InteropServers {
    /// `path` (with its query, if any) on nginx: over plain HTTP, or over TLS when `secure`.
    func nginxURL(_ path: String, secure: Bool = false) -> URL {
        URL(string: (secure ? nginxHTTPS : nginxHTTP).absoluteString + path)!
    }

    /// `path` (with its query, if any) on httpbin, e.g. `/get` or `/basic-auth/user/pass`.
    func httpbinURL(_ path: String) -> URL {
        URL(string: httpbin.absoluteString + path)!
    }

    /// An nginx URL that answers `status` (301, 302, 303, 307 or 308) with `Location: target`.
    /// The target is sent as written, not percent-encoded again, and may have its own query.
    func redirectURL(status: Int, to target: String, secure: Bool = false) -> URL {
        precondition(
            NginxConfiguration.redirectCodes.contains(status),
            "nginx redirects with \(NginxConfiguration.redirectCodes)")
        return nginxURL("/redirect/\(status)?to=\(target)", secure: secure)
    }
}
