extension Route {
    /// `/text?body=...&type=...`: `200` with `body` (UTF-8) as the response body and `type` as its
    /// `Content-Type` (`text/plain; charset=utf-8` by default): a file served by the test server,
    /// such as a proxy auto-configuration script (`application/x-ns-proxy-autoconfig`).
    public static func text(_ body: String, contentType: String? = nil) -> Route {
        Route(TextResponder(body: body, contentType: contentType))
    }
}

/// Serves ``Route/text(_:contentType:)``: the given text with the given type.
struct TextResponder: Endpoint {
    let body: String
    let contentType: String?

    func respond(to exchange: Exchange) throws {
        let type = HeaderField(name: "Content-Type", value: contentType ?? "text/plain; charset=utf-8")
        try exchange.respond(status: 200, headers: [type], body: Array(body.utf8))
    }
}

extension TextResponder {
    static let segments = ["text"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty, let body = target.query("body") else { return nil }
        self.init(body: body, contentType: target.query("type"))
    }
    var path: String {
        "/text?body=" + PercentCoding.encode(body) + (contentType.map { "&type=" + PercentCoding.encode($0) } ?? "")
    }
}
