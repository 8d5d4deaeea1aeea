extension Route {
    /// `/redirect/<status>?to=<url>[&cookie=<name=value>]`: answers `status` (any 3xx) with
    /// `Location: <url>`, the text body `redirecting to <url>`, and `Set-Cookie: <name=value>;
    /// Path=/` when a cookie is given. The URL may be relative.
    public static func redirect(_ status: Int, to target: String, setCookie: String? = nil) -> Route {
        Route(RedirectResponder(status: status, target: target, cookie: setCookie))
    }
}

/// Serves ``Route/redirect(_:to:setCookie:)``: a redirect to any URL, relative or absolute,
/// with any 3xx status, setting a cookie on the way if asked.
struct RedirectResponder: Endpoint {
    let status: Int
    let target: String
    let cookie: String?

    func respond(to exchange: Exchange) throws {
        var headers = [HeaderField(name: "Location", value: target)]
        if let cookie { headers.append(HeaderField(name: "Set-Cookie", value: cookie + "; Path=/")) }
        try exchange.respond(status: status, text: "redirecting to \(target)", headers: headers)
    }
}

extension RedirectResponder {
    static let segments = ["redirect"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let status = target.number(at: 0), (300...399).contains(status),
            let location = target.query("to")
        else { return nil }
        self.init(status: status, target: location, cookie: target.query("cookie"))
    }
    var path: String {
        let cookiePart = cookie.map { "&cookie=" + PercentCoding.encode($0) } ?? ""
        return "/redirect/\(status)?to=\(PercentCoding.encode(target))" + cookiePart
    }
}
