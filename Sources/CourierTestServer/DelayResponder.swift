/// Serves ``Route/delay(milliseconds:)``: a correct response that is slow to start.
struct DelayResponder: Responder {
    let milliseconds: Int

    func respond(to exchange: Exchange) throws {
        try exchange.watchingForClientClose {
            try exchange.connection.sleep(seconds: Double(milliseconds) / 1000)
            try exchange.respond(status: 200, text: "delayed \(milliseconds) ms")
        }
    }
}
