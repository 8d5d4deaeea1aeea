import Foundation

/// ASI's redirect rules as a value (asi-api.md A.4, F.1): which responses are followed, the
/// next hop's method, body and headers, what no other host may see, and the limit. It reads the
/// request's settings and answers questions; the request applies the answers. No lock, no I/O,
/// so each rule has a socket-free test (RedirectPolicyTests).
struct RedirectPolicy: Sendable, Equatable {
    var shouldRedirect = true
    var maxRedirects = HTTPRequest.defaultMaxRedirects
    var shouldUseRFC2616RedirectBehaviour = false
    var shouldSendCredentialsAcrossRedirects = false

    init(
        shouldRedirect: Bool = true, maxRedirects: Int = HTTPRequest.defaultMaxRedirects,
        shouldUseRFC2616RedirectBehaviour: Bool = false, shouldSendCredentialsAcrossRedirects: Bool = false
    ) {
        self.shouldRedirect = shouldRedirect
        self.maxRedirects = maxRedirects
        self.shouldUseRFC2616RedirectBehaviour = shouldUseRFC2616RedirectBehaviour
        self.shouldSendCredentialsAcrossRedirects = shouldSendCredentialsAcrossRedirects
    }

    init(_ config: borrowing RequestConfiguration) {
        self.init(
            shouldRedirect: config.shouldRedirect, maxRedirects: config.maxRedirects,
            shouldUseRFC2616RedirectBehaviour: config.shouldUseRFC2616RedirectBehaviour,
            shouldSendCredentialsAcrossRedirects: config.shouldSendCredentialsAcrossRedirects)
    }

    /// The redirects ASI follows (and 308, beyond ASI).
    static func isRedirectStatus(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// Whether a response with `status` is followed: without a Location there is nowhere to go,
    /// and the response is the request's answer.
    func follows(status: Int, hasLocation: Bool) -> Bool {
        shouldRedirect && Self.isRedirectStatus(status) && hasLocation
    }

    /// The URL a Location names, resolved against the URL that answered with it (a cached hop
    /// stores the Location as the server sent it; libcurl's CURLINFO_REDIRECT_URL is already
    /// absolute). Nil when there is none, or it is no URL.
    static func target(of location: String?, from current: URL) -> URL? {
        // An empty Location would resolve to the current URL: a loop, not a redirect.
        guard let location, !location.isEmpty else { return nil }
        return URL(string: location, relativeTo: current)?.absoluteURL
    }

    /// Whether the redirect counted as number `count` is one too many.
    func exceedsLimit(count: Int) -> Bool { count > maxRedirects }

    /// How the next hop differs from the one that was redirected.
    struct Hop: Sendable, Equatable {
        var url: URL
        var method: String
        /// 301/302 (ASI's way) and 303 turn into a GET without body and without the user's
        /// headers but User-Agent and Accept; 307 and 308 keep all of them.
        var becomesGET: Bool
        /// Authorization and the user's Cookie header are dropped: another host or port, or a
        /// step down from https to http.
        var stripsCredentials: Bool
    }

    /// The next hop after a `status` redirect of a `method` request from `current` to `next`.
    /// The request's own `requestCookies` never follow any hop (ASI cleared them on every one);
    /// that rule needs no answer here.
    func hop(status: Int, method: String, from current: URL, to next: URL) -> Hop {
        let rewrites = status == 303 || ((status == 301 || status == 302) && !shouldUseRFC2616RedirectBehaviour)
        // A HEAD stays a HEAD: turning it into a GET would download the body it asked not to.
        let becomesGET = rewrites && method != "HEAD"
        return Hop(
            url: next, method: becomesGET ? "GET" : method, becomesGET: becomesGET,
            stripsCredentials: !shouldSendCredentialsAcrossRedirects && !Self.isSameAuthority(current, next))
    }

    /// The request headers the next hop sends.
    static func headers(_ headers: HTTPHeaders, for hop: Hop) -> HTTPHeaders {
        var kept = HTTPHeaders()
        if hop.becomesGET {
            for (name, value) in headers
            where name.equalsIgnoringASCIICase("User-Agent") || name.equalsIgnoringASCIICase("Accept") {
                kept.add(name: name, value: value)
            }
            return kept
        }
        guard hop.stripsCredentials else { return headers }
        kept = headers
        for name in ["Authorization", "Cookie"] { kept.remove(name: name) }
        return kept
    }

    /// Same host and port, and no step down from https to http.
    static func isSameAuthority(_ current: URL, _ next: URL) -> Bool {
        let currentScheme = current.scheme?.lowercased() ?? ""
        let nextScheme = next.scheme?.lowercased() ?? ""
        if currentScheme == "https", nextScheme == "http" { return false }
        func port(_ url: URL, _ scheme: String) -> Int { url.port ?? (scheme == "https" ? 443 : 80) }
        return current.host?.lowercased() == next.host?.lowercased()
            && port(current, currentScheme) == port(next, nextScheme)
    }
}

extension RedirectPolicy {
    /// Why the redirect past `maxRedirects` failed the request.
    var limitMessage: String {
        maxRedirects == 0
            ? "The server redirected the request, which follows no redirects (maxRedirects is 0)"
            : "The request redirected more than \(maxRedirects == 1 ? "once" : "\(maxRedirects) times")"
    }
}
