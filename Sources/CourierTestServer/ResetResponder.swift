/// Serves ``Route/reset``: resets the connection (TCP RST) instead of answering.
struct ResetResponder: Responder {
    func respond(to exchange: Exchange) throws {
        exchange.connection.reset()
    }
}
