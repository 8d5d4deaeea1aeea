extension Route {
    /// `/status-times/<key>/<count>/<status>`: the first `count` requests for `key`
    /// answer like ``status(_:)`` with `status` (its reason phrase, body
    /// `status <status>`); later ones answer `200` with the text body `ok`. Shares the
    /// per-key counter with ``stallTimes(key:count:)``, so use distinct keys.
    public static func statusTimes(key: String, count: Int, status: Int) -> Route {
        Route(StatusTimesResponder(key: key, count: count, status: status))
    }
}

/// Serves ``Route/statusTimes(key:count:status:)``: answers `status` to the first
/// `count` requests for `key` and `200 ok` afterwards, so a test can show whether a
/// client retried an error response.
struct StatusTimesResponder: Endpoint {
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

extension StatusTimesResponder {
    static let segments = ["status-times"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 3, let count = target.number(at: 1), let status = target.number(at: 2),
            (100...999).contains(status)
        else { return nil }
        self.init(key: target.arguments[0], count: count, status: status)
    }
    var path: String { "/status-times/\(PercentCoding.encode(key))/\(count)/\(status)" }
}
