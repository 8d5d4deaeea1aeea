/// Serves ``Route/statusTimes(key:count:status:)``: answers `status` to the first
/// `count` requests for `key` and `200 ok` afterwards, so a test can show whether a
/// client retried an error response.
struct StatusTimesResponder: Responder {
    let key: String
    let count: Int
    let status: Int

    func respond(to exchange: Exchange) throws {
        if exchange.server.nextHit(forKey: key) <= count {
            try StatusResponder(code: status).respond(to: exchange)
        } else {
            try exchange.respond(status: 200, text: "ok")
        }
    }
}
