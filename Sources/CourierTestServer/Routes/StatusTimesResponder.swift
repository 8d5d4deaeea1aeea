extension Route {
    /// `/status-times/<key>/<count>/<status>`: the first `count` requests for `key`
    /// answer like ``status(_:)`` with `status` (its reason phrase, body
    /// `status <status>`); later ones answer `200` with the text body `ok`. Shares the
    /// per-key counter with ``stallTimes(key:count:)``, so use distinct keys. With
    /// `retryAfter` (`...?retry-after=<seconds>`), each error response says
    /// `Retry-After: <seconds>`.
    public static func statusTimes(key: String, count: Int, status: Int, retryAfter: Int? = nil) -> Route {
        Route(StatusTimesResponder(key: key, count: count, status: status, retryAfter: retryAfter))
    }
}

/// Serves ``Route/statusTimes(key:count:status:)``: answers `status` to the first
/// `count` requests for `key` and `200 ok` afterwards, so a test can show whether a
/// client retried an error response.
struct StatusTimesResponder: Endpoint {
    let key: String
    let count: Int
    let status: Int
    var retryAfter: Int?

    func respond(to exchange: Exchange) throws {
        if exchange.server.nextHit(forKey: key) <= count {
            guard let retryAfter else { return try StatusResponder(code: status).respond(to: exchange) }
            try exchange.respond(
                status: status, text: "status \(status)",
                headers: [HeaderField(name: "Retry-After", value: String(retryAfter))])
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
        let retryAfter = target.query.first { $0.name == "retry-after" }.flatMap { Int($0.value) }
        self.init(key: target.arguments[0], count: count, status: status, retryAfter: retryAfter)
    }
    var path: String {
        "/status-times/\(PercentCoding.encode(key))/\(count)/\(status)"
            + (retryAfter.map { "?retry-after=\($0)" } ?? "")
    }
}
