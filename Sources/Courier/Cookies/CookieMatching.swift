import Foundation

/// Which of the user's own cookies (`requestCookies`) go to a URL: RFC 6265's rules, as the
/// jar applies them to its own — the domain (a leading dot: subdomains too; none: that host
/// alone), the path, `Secure` (https, or a loopback host, which libcurl also counts as a secure
/// context), and the expiry.
enum CookieMatching {
    /// Whether `cookie` is to be sent to `url` at `now`.
    static func matches(_ cookie: HTTPCookie, url: URL, now: Date) -> Bool {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return false }
        if let expiry = cookie.expiresDate, expiry <= now { return false }
        if cookie.isSecure, url.scheme?.lowercased() != "https", !isLoopback(host) { return false }
        return domainMatches(host: host, cookieDomain: cookie.domain) && pathMatches(url: url, cookiePath: cookie.path)
    }

    /// RFC 6265 §5.1.3, with a leading dot meaning "and subdomains" (never for an IP address).
    static func domainMatches(host: String, cookieDomain: String) -> Bool {
        var domain = cookieDomain.lowercased()
        if domain.hasSuffix(".") { domain.removeLast() }
        guard domain.hasPrefix(".") else { return host == domain }
        domain.removeFirst()
        if host == domain { return true }
        return !isIPAddress(host) && host.hasSuffix("." + domain)
    }

    /// RFC 6265 §5.1.4: the cookie's path is the request path, or a prefix of it ending at a "/".
    static func pathMatches(url: URL, cookiePath: String) -> Bool {
        let requestPath = url.path.isEmpty ? "/" : url.path
        let path = cookiePath.isEmpty ? "/" : cookiePath
        if requestPath == path { return true }
        guard requestPath.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || requestPath.dropFirst(path.count).hasPrefix("/")
    }

    /// The Cookie field's value for the cookies that go to `url`, in their order
    /// ("name=value; name2=value2", values as given, as ASI sent them), or nil for none.
    static func headerValue(for cookies: [HTTPCookie], url: URL, now: Date = Date()) -> String? {
        let pairs = cookies.lazy.filter { matches($0, url: url, now: now) }.map { $0.name + "=" + $0.value }
        let value = pairs.joined(separator: "; ")
        return value.isEmpty ? nil : value
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]"
    }

    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }
}
