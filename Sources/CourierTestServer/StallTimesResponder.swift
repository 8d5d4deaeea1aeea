/// Serves ``Route/stallTimes(key:count:)``: stalls the first `count` requests for
/// `key`, then answers, so a client's timeout-and-retry logic can be tested end to end.
struct StallTimesResponder: Responder {
    let key: String
    let count: Int

    func respond(to exchange: Exchange) throws {
        guard exchange.server.nextHit(forKey: key) > count else { try exchange.stall() }
        try exchange.respond(status: 200, text: "answered after \(count) stalls")
    }
}
