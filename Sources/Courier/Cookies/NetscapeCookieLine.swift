import Foundation

/// One cookie as a line of a Netscape cookie file, the form libcurl reads and writes
/// (`CURLINFO_COOKIELIST`, `CURLOPT_COOKIELIST`, `CURLOPT_COOKIEJAR`): seven tab-separated
/// fields — domain, whether subdomains match ("TRUE"/"FALSE"), path, secure, expiry in seconds
/// since 1970 (0: a session cookie), name, value — with `#HttpOnly_` in front for an HTTP-only
/// cookie.
///
/// An `HTTPCookie` whose domain starts with a dot matches subdomains too (as Apple's cookies
/// set with a Domain attribute do); one without a dot is for that host alone.
enum NetscapeCookieLine {
    static let httpOnlyPrefix = "#HttpOnly_"

    /// The line for `cookie`, or nil when a field holds a tab, CR, LF or NUL (which would break
    /// the line), the name or domain is empty, or the domain starts with "#" (the line would be
    /// a comment, to libcurl as to `cookie(from:)`).
    static func line(for cookie: HTTPCookie) -> String? {
        let domain = cookie.domain
        let path = cookie.path.isEmpty ? "/" : cookie.path
        let expiry = cookie.expiresDate.map(expiryField) ?? 0
        let fields = [
            domain, domain.hasPrefix(".") ? "TRUE" : "FALSE", path, cookie.isSecure ? "TRUE" : "FALSE",
            String(expiry), cookie.name, cookie.value,
        ]
        guard !cookie.name.isEmpty, !domain.isEmpty, domain != ".", !domain.hasPrefix("#"),
            !fields.contains(where: { $0.utf8.contains { $0 == 9 || $0 == 10 || $0 == 13 || $0 == 0 } })
        else { return nil }
        return (cookie.isHTTPOnly ? httpOnlyPrefix : "") + fields.joined(separator: "\t")
    }

    /// The expiry field for `date`: whole seconds since 1970, at least 1 (0 would make it a
    /// session cookie), and `Int64.max` for a date past that: `Max-Age=9223372036854775807`
    /// gives one, and `Int64(_:)` of a Double out of range traps.
    static func expiryField(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        // 2^63 (Int64.max as a Double) is the first value out of range; NaN is not below it.
        guard seconds < 9_223_372_036_854_775_808.0 else { return .max }
        return seconds < 1 ? 1 : Int64(seconds)
    }

    /// The cookie a line describes, or nil for a comment, a blank line or a malformed one.
    static func cookie(from line: Substring) -> HTTPCookie? {
        var line = line
        if line.hasSuffix("\r") { line = line.dropLast() }
        var isHTTPOnly = false
        if line.hasPrefix(httpOnlyPrefix) {
            line = line.dropFirst(httpOnlyPrefix.count)
            isHTTPOnly = true
        }
        guard !line.hasPrefix("#") else { return nil }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 7 || fields.count == 6, let expiry = Int64(fields[4]), !fields[5].isEmpty else {
            return nil
        }
        var domain = String(fields[0])
        let matchesSubdomains = fields[1].uppercased() == "TRUE"
        if matchesSubdomains, !domain.hasPrefix(".") { domain = "." + domain }
        if !matchesSubdomains, domain.hasPrefix(".") { domain.removeFirst() }
        // ".#host" with FALSE would be written "#host": a comment. No host starts with "#".
        guard !domain.isEmpty, domain != ".", !domain.hasPrefix("#") else { return nil }
        var properties: [HTTPCookiePropertyKey: Any] = [
            .domain: domain, .path: fields[2].isEmpty ? "/" : String(fields[2]), .name: String(fields[5]),
            .value: fields.count == 7 ? String(fields[6]) : "",
        ]
        if fields[3].uppercased() == "TRUE" { properties[.secure] = "TRUE" }
        if isHTTPOnly { properties[HTTPCookie.httpOnlyKey] = "TRUE" }
        if expiry > 0 {
            properties[.expires] = Date(timeIntervalSince1970: TimeInterval(expiry))
        } else {
            properties[.discard] = "TRUE"
        }
        return HTTPCookie(properties: properties)
    }
}

extension HTTPCookie {
    /// The property that makes an `HTTPCookie` HTTP-only (`isHTTPOnly`); Foundation has no
    /// public constant for it.
    static let httpOnlyKey = HTTPCookiePropertyKey("HttpOnly")
}
