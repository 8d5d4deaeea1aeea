extension Route {
    /// `/headers?name=value&...`: `200`, body `ok`, and each pair as a response header,
    /// sorted by name (dictionaries have no order). Use ``headerFields(_:)`` for
    /// repeated names or a specific order.
    public static func headers(_ fields: [String: String]) -> Route {
        let sorted = fields.sorted { $0.key < $1.key }
        return Route(HeadersResponder(fields: sorted.map { HeaderField(name: $0.key, value: $0.value) }))
    }

    /// `/headers?name=value&...` with the pairs in this order, repeats allowed
    /// (e.g. two `Set-Cookie` fields), each sent as its own header line. Equal to the
    /// ``headers(_:)`` route with the same fields in sorted order.
    public static func headerFields(_ fields: [HeaderField]) -> Route { Route(HeadersResponder(fields: fields)) }
}

/// Serves ``Route/headers(_:)`` and ``Route/headerFields(_:)``: body `ok`, plus each
/// field as its own response header line, in order (repeats stay separate lines, so
/// tests can check how a client joins them).
///
/// Fields are sent verbatim, even ones that clash with the server's own framing
/// headers (a second `Content-Length`, say), so tests can provoke such conflicts.
struct HeadersResponder: Endpoint {
    let fields: [HeaderField]

    func respond(to exchange: Exchange) throws {
        var headers = fields
        // Only add a Content-Type when the query did not ask for a specific one.
        if !fields.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Type") }) {
            headers.insert(HeaderField(name: "Content-Type", value: "text/plain; charset=utf-8"), at: 0)
        }
        try exchange.respond(status: 200, headers: headers, body: Array("ok".utf8))
    }
}

extension HeadersResponder {
    static let segments = ["headers"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty else { return nil }
        self.init(fields: target.query)
    }
    var path: String {
        guard !fields.isEmpty else { return "/headers" }
        return "/headers?"
            + fields.map { "\(PercentCoding.encode($0.name))=\(PercentCoding.encode($0.value))" }
            .joined(separator: "&")
    }
}
