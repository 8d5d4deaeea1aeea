extension Route {
    /// `/drop/headers`: sends exactly `HTTP/1.1 200 OK\r\nContent-Type: text/pl` and
    /// closes the connection cleanly (FIN) in the middle of the head.
    public static var dropMidHeaders: Route { Route(DropMidHeadersResponder()) }
}

/// Serves ``Route/dropMidHeaders``: hangs up in the middle of a header line.
struct DropMidHeadersResponder: Endpoint {
    /// Exactly what is sent: a status line and half a header field, no CRLF after it.
    static let partialHead = Array("HTTP/1.1 200 OK\r\nContent-Type: text/pl".utf8)

    func respond(to exchange: Exchange) throws {
        try exchange.connection.write(Self.partialHead)
        exchange.hangUp()
    }
}

extension DropMidHeadersResponder {
    static let segments = ["drop"]
    init?(_ target: RouteTarget) {
        guard target.arguments == ["headers"] else { return nil }
    }
    var path: String { "/drop/headers" }
}
