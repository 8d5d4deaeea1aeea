/// Serves ``Route/stall``: never answers, holding the connection until the client
/// gives up (counted) or the server stops.
struct StallResponder: Responder {
    func respond(to exchange: Exchange) throws {
        try exchange.stall()
    }
}
