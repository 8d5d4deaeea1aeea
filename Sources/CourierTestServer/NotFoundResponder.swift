/// Answers any path the server does not serve: `404` with the body `no such route`.
struct NotFoundResponder: Responder {
    func respond(to exchange: Exchange) throws {
        try exchange.respond(status: 404, text: "no such route")
    }
}
