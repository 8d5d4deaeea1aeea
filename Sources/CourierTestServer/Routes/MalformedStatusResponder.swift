extension Route {
    /// `/malformed`: answers exactly `HTTP/1.1 abc Broken\r\nContent-Length: 2\r\n\r\nok`,
    /// a status line whose code is not a number, then closes (FIN).
    public static var malformedStatus: Route { Route(MalformedStatusResponder()) }
}

/// Serves ``Route/malformedStatus``: a response whose status code is not a number.
struct MalformedStatusResponder: Endpoint {
    /// Exactly what is sent. Everything but the status code is well-formed, so the
    /// client's failure can only come from the status line.
    static let response = Array("HTTP/1.1 abc Broken\r\nContent-Length: 2\r\n\r\nok".utf8)

    func respond(to exchange: Exchange) throws {
        try exchange.connection.write(Self.response)
        exchange.hangUp()
    }
}

extension MalformedStatusResponder {
    static let segments = ["malformed"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty else { return nil }
    }
    var path: String { "/malformed" }
}
