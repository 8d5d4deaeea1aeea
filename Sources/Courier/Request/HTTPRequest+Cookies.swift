import Foundation

/// Cookies, as ASI exposed `NSHTTPCookieStorage`: the shared jar is libcurl's cookie engine
/// behind the engine's share handle, which scopes each cookie to its domain and path, refuses a
/// cookie a server sets for another domain or for a public suffix (libpsl), and is read and
/// changed only on the engine thread. Every member here may be used from any thread.
extension HTTPRequest {
    /// Cookies of your own to send, in this order, as "name=value; name2=value2": each goes only
    /// to a URL its domain and path match (a domain with a leading dot: subdomains too), `Secure`
    /// ones only over https (or to a loopback host). Sent whether or not `useCookiePersistence`
    /// is on, in one Cookie field with the jar's cookies and any Cookie header of yours. Every
    /// redirect empties the list, as ASI did, to the same host too: the next hop sends only the
    /// jar's cookies for its URL. Kept by `copy()`.
    public var requestCookies: [HTTPCookie] {
        get { read(\.config.requestCookies) }
        set { write(\.config.requestCookies, newValue) }
    }

    /// The cookies the last response set, from its Set-Cookie fields, whether or not
    /// `useCookiePersistence` is on (ASI): name, value, domain (the response's host when the
    /// field names none), path, expiry, `Secure` and `HttpOnly`. A cookie for a domain the host
    /// is not in is left out, as the jar refuses it.
    public var responseCookies: [HTTPCookie] {
        let (fields, url) = state.withLock { ($0.response.headers.values(for: "Set-Cookie"), $0.config.url) }
        return fields.isEmpty ? [] : SetCookieParser.cookies(from: fields, url: url)
    }

    // MARK: - The shared jar

    /// Every cookie in the shared jar: those servers set for requests with
    /// `useCookiePersistence` on, and those given to `setSessionCookies(_:)` or
    /// `addSessionCookie(_:)`. Session cookies have no `expiresDate`.
    public class var sessionCookies: [HTTPCookie] {
        do {
            let lines = try Engine.shared.withCookieJar { try $0.lines() }
            return lines.compactMap { NetscapeCookieLine.cookie(from: $0[...]) }
        } catch {
            Log.message("the cookie jar could not be read: \(error)")
            return []
        }
    }

    /// Replaces the jar's cookies with `cookies`: those of the previous list (every cookie the
    /// jar holds) are deleted, as ASI's `setSessionCookies:` deleted them from the store.
    /// A cookie with a tab, CR, LF or NUL in a field, or without a name or domain, is left out.
    public class func setSessionCookies(_ cookies: [HTTPCookie]) {
        let lines = cookies.compactMap(NetscapeCookieLine.line(for:))
        changeJar { jar in
            try jar.removeAll()
            for line in lines { try jar.add(line: line) }
        }
    }

    /// Adds `cookie` to the jar, replacing the cookie of the same domain, path and name.
    public class func addSessionCookie(_ cookie: HTTPCookie) {
        guard let line = NetscapeCookieLine.line(for: cookie) else {
            Log.message("the cookie \(cookie.name) has a tab, CR, LF or NUL in a field, or no domain: not added")
            return
        }
        changeJar { try $0.add(line: line) }
    }

    /// The Netscape cookie file the shared jar is loaded from and saved to (nil, the default:
    /// the jar lives in memory only and nothing is written to disk). Setting a path adds the
    /// file's cookies to the jar before any request started afterwards; the jar is then saved
    /// there, atomically and readable by its owner only (0600), half a second after a response
    /// sets cookies or the jar is changed here, and at exit, so the next process finds them.
    /// Session cookies are saved too, as curl's cookie jar does; `clearSession()` drops them.
    public class var cookieFilePath: String? {
        get { CookiePersistence.path }
        set { CookiePersistence.path = newValue }
    }

    /// Drops the jar's session cookies (`CURLOPT_COOKIELIST "SESS"`), for `clearSession()`.
    static func clearSessionCookies() {
        changeJar { try $0.removeSessionCookies() }
    }

    /// Runs `change` on the jar, on the engine thread, waits for it, and lets the cookie file
    /// know.
    private static func changeJar(_ change: @escaping @Sendable (CookieJar) throws -> Void) {
        do {
            try Engine.shared.withCookieJar(change)
        } catch {
            Log.message("the cookie jar could not be changed: \(error)")
        }
        CookiePersistence.jarDidChange()
    }
}

extension HTTPRequest {
    /// What an attempt to `url` gives libcurl as `CURLOPT_COOKIE`: the user's Cookie header as
    /// given, then the `requestCookies` that match `url` (nil: neither). libcurl sends it in the
    /// one Cookie field, after the jar's cookies. A cookie whose name or value holds a CR, LF or
    /// NUL fails the request before anything is sent.
    static func cookieValue(for config: RequestConfiguration, url: URL) throws(HTTPRequestError) -> String? {
        guard !config.requestCookies.isEmpty || config.requestHeaders.contains("Cookie") else { return nil }
        var parts = config.requestHeaders.values(for: "Cookie").filter { !$0.isEmpty }
        for cookie in config.requestCookies where (cookie.name + cookie.value).utf8.contains(where: isLineBreakOrNUL) {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The cookie '\(cookie.name)' contains a CR, LF or NUL character", url: url)
        }
        if let own = CookieMatching.headerValue(for: config.requestCookies, url: url) { parts.append(own) }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    private static func isLineBreakOrNUL(_ byte: UInt8) -> Bool { byte == 0x0D || byte == 0x0A || byte == 0 }
}
