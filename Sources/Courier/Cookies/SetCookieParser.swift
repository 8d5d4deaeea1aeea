import Foundation

/// Reads `Set-Cookie` fields into `HTTPCookie`s as RFC 6265 §5.2 says, for `responseCookies`:
/// name and value, `Expires` (or `Max-Age`, which wins), `Domain`, `Path`, `Secure` and
/// `HttpOnly`. A cookie without a Domain attribute is for the response's host alone (its
/// `domain` is that host); one with a Domain attribute gets it with a leading dot (subdomains
/// too), as Apple's cookies do. A cookie whose Domain the host is not inside is left out, as the
/// jar refuses it; the public-suffix list is the jar's alone (libcurl's libpsl), so a cookie for
/// a public suffix still shows here, but is never stored or sent.
enum SetCookieParser {
    /// The cookies of the fields, in order, as received from `url`.
    static func cookies(from fields: [String], url: URL, now: Date = Date()) -> [HTTPCookie] {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return [] }
        return fields.compactMap { cookie(from: $0, host: host, requestPath: url.path, now: now) }
    }

    static func cookie(from field: String, host: String, requestPath: String, now: Date) -> HTTPCookie? {
        let parts = field.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trimmed(pair[..<equals])
        let value = trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty else { return nil }
        var expires: Date?
        var maxAge: Date?
        var domain: String?
        var path: String?
        var isSecure = false
        var isHTTPOnly = false
        for attribute in parts.dropFirst() {
            let split = attribute.firstIndex(of: "=")
            let key = trimmed(split.map { attribute[..<$0] } ?? attribute[...]).lowercased()
            let argument = split.map { trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            switch key {
            case "expires":
                if let date = CookieDate.parse(Substring(argument)) { expires = date }
            case "max-age":
                if let seconds = Int(argument), argument.first?.isNumber ?? false || argument.first == "-" {
                    maxAge =
                        seconds <= 0 ? Date(timeIntervalSince1970: 0) : now.addingTimeInterval(TimeInterval(seconds))
                }
            case "domain":
                var given = argument.lowercased()
                if given.hasPrefix(".") { given.removeFirst() }
                if !given.isEmpty { domain = given }
            case "path":
                if argument.hasPrefix("/") { path = argument }
            case "secure":
                isSecure = true
            case "httponly":
                isHTTPOnly = true
            default:
                break
            }
        }
        let cookieDomain: String
        if let domain {
            guard CookieMatching.domainMatches(host: host, cookieDomain: "." + domain) else { return nil }
            // An IP address is its own domain only: no leading dot.
            cookieDomain = CookieMatching.isIPAddress(host) ? host : "." + domain
        } else {
            cookieDomain = host
        }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: name, .value: value, .domain: cookieDomain, .path: path ?? defaultPath(requestPath),
        ]
        if let expiry = maxAge ?? expires {
            properties[.expires] = expiry
        } else {
            properties[.discard] = "TRUE"
        }
        if isSecure { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookie.httpOnlyKey] = "TRUE" }
        return HTTPCookie(properties: properties)
    }

    /// RFC 6265 §5.1.4's default-path: the request path up to its last "/" (not included), or "/".
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let last = requestPath.lastIndex(of: "/"), last != requestPath.startIndex
        else { return "/" }
        return String(requestPath[..<last])
    }

    private static func trimmed(_ text: Substring) -> String {
        text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
    }
}
