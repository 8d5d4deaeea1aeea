extension Route {
    /// `/verbatim?response=<bytes>`: reads the request, sends exactly `response` (its UTF-8
    /// bytes, NUL included) and nothing else, then closes the connection cleanly (FIN).
    ///
    /// For the responses no well-behaved server writes: a broken status line, a body with no
    /// status line at all (HTTP/0.9), chunked framing with bad sizes or no last chunk. The
    /// close ends a response that has no framing of its own.
    public static func verbatim(_ response: String) -> Route { Route(VerbatimResponder(response: response)) }
}

/// Serves ``Route/verbatim(_:)``: a response written byte for byte as the test gave it.
struct VerbatimResponder: Endpoint {
    let response: String

    func respond(to exchange: Exchange) throws {
        try exchange.connection.write(Array(response.utf8))
        exchange.hangUp()
    }
}

extension VerbatimResponder {
    static let segments = ["verbatim"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty, let response = target.query("response") else { return nil }
        self.init(response: response)
    }
    var path: String { "/verbatim?response=\(PercentCoding.encode(response))" }
}
