/// Serves ``Route/dropMidHeaders``: hangs up in the middle of a header line.
struct DropMidHeadersResponder: Responder {
    /// Exactly what is sent: a status line and half a header field, no CRLF after it.
    static let partialHead = Array("HTTP/1.1 200 OK\r\nContent-Type: text/pl".utf8)

    func respond(to exchange: Exchange) throws {
        try exchange.connection.write(Self.partialHead)
        exchange.hangUp()
    }
}
