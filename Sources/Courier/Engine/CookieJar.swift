import CCurl

/// The shared cookie jar, read and changed through a scratch easy handle attached to the engine's
/// cookie-sharing share handle: libcurl offers the jar only through an easy handle
/// (`CURLINFO_COOKIELIST` reads it, `CURLOPT_COOKIELIST` changes it), and the share makes that
/// handle's jar the one every transfer uses.
///
/// Confined to the engine thread, like every easy handle: the share handle has no lock
/// callbacks, because all transfers run on that thread, so the jar may be touched nowhere else.
/// Reach it with `Engine.withCookieJar`.
final class CookieJar {
    private let handle: EasyHandle

    /// Throws when libcurl cannot make an easy handle, or will not attach it to the share.
    init(share: UnsafeMutableRawPointer) throws {
        guard let handle = EasyHandle() else { throw CurlError(CURLE_OUT_OF_MEMORY) }
        // CURLOPT_SHARE with CURL_LOCK_DATA_COOKIE points the handle's cookie engine at the
        // share's jar (and turns the engine on): nothing else is needed for CURLOPT_COOKIELIST.
        try handle.set(CURLOPT_SHARE, pointer: share)
        self.handle = handle
    }

    /// Every cookie in the jar as a Netscape cookie-file line (`CURLINFO_COOKIELIST`): domain,
    /// tail match, path, secure, expiry (0: a session cookie), name, value, tab-separated; an
    /// HTTP-only cookie's line starts with `#HttpOnly_`.
    func lines() throws -> [String] {
        var list: UnsafeMutablePointer<curl_slist>?
        let code = ccurl_easy_getinfo_slist(handle.raw, CURLINFO_COOKIELIST, &list)
        defer { curl_slist_free_all(list) }
        guard code == CURLE_OK else { throw CurlError(code, text: "reading the cookie jar failed") }
        var lines: [String] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { lines.append(String(cString: data)) }
            node = current.pointee.next
        }
        return lines
    }

    /// Adds one cookie given as a Netscape line (see `lines()`), replacing the jar's cookie of
    /// the same name, domain and path. libcurl checks no public suffix for a line given so: the
    /// line is the user's (or their cookie file's) word, not a server's.
    func add(line: String) throws {
        try handle.set(CURLOPT_COOKIELIST, line)
    }

    /// Forgets every cookie (`CURLOPT_COOKIELIST "ALL"`).
    func removeAll() throws {
        try handle.set(CURLOPT_COOKIELIST, "ALL")
    }

    /// Forgets the session cookies, those without an expiry (`CURLOPT_COOKIELIST "SESS"`).
    func removeSessionCookies() throws {
        try handle.set(CURLOPT_COOKIELIST, "SESS")
    }
}

@available(*, unavailable, message: "CookieJar is confined to the engine thread")
extension CookieJar: Sendable {}
