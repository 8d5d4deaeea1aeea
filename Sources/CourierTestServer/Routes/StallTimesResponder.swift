extension Route {
    /// `/stall-times/<key>/<count>`: the first `count` requests for `key` stall like
    /// ``stall``; every later one answers `200` with the text body
    /// `answered after <count> stalls`. The server counts requests per key (see
    /// ``TestServer/hits(forKey:)``), so a client's retries on new connections are
    /// counted together; keys are independent.
    public static func stallTimes(key: String, count: Int) -> Route {
        Route(StallTimesResponder(key: key, count: count))
    }
}

/// Serves ``Route/stallTimes(key:count:)``: stalls the first `count` requests for
/// `key`, then answers, so a client's timeout-and-retry logic can be tested end to end.
struct StallTimesResponder: Endpoint {
    let key: String
    let count: Int

    func respond(to exchange: Exchange) throws {
        guard exchange.server.nextHit(forKey: key) > count else { try exchange.stall() }
        try exchange.respond(status: 200, text: "answered after \(count) stalls")
    }
}

extension StallTimesResponder {
    static let segments = ["stall-times"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, let count = target.number(at: 1) else { return nil }
        self.init(key: target.arguments[0], count: count)
    }
    var path: String { "/stall-times/\(PercentCoding.encode(key))/\(count)" }
}
