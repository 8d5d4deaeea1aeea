/// Serves ``Route/malformedStatus``: a response whose status code is not a number.
struct MalformedStatusResponder: Responder {
    /// Exactly what is sent. Everything but the status code is well-formed, so the
    /// client's failure can only come from the status line.
    static let response = Array("HTTP/1.1 abc Broken\r\nContent-Length: 2\r\n\r\nok".utf8)

    func respond(to exchange: Exchange) throws {
        try exchange.connection.write(Self.response)
        exchange.hangUp()
    }
}
