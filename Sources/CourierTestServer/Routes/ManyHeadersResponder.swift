extension Route {
    /// `/many-headers/<n>`: `200` with `n` header fields `X-Field-<i>: <i>` (i from 1), then
    /// the body `ok` (`Content-Length: 2`): a head far larger than any client should hold.
    public static func manyHeaders(_ count: Int) -> Route { Route(ManyHeadersResponder(count: count)) }
}

/// Serves ``Route/manyHeaders(_:)``: a head with any number of small fields, written in
/// bounded batches so a large count never builds one huge buffer.
struct ManyHeadersResponder: Endpoint {
    let count: Int

    func respond(to exchange: Exchange) throws {
        try exchange.watchingForClientClose {
            var pending = Array("\(exchange.request.version) 200 OK\r\nContent-Length: 2\r\n".utf8)
            for index in 0..<max(0, count) {
                pending.append(contentsOf: "X-Field-\(index + 1): \(index + 1)\r\n".utf8)
                if pending.count >= 64 * 1024 {
                    try exchange.connection.write(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            pending.append(contentsOf: "\r\nok".utf8)
            try exchange.connection.write(pending)
        }
        exchange.hangUp()
    }
}

extension ManyHeadersResponder {
    static let segments = ["many-headers"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let count = target.number(at: 0) else { return nil }
        self.init(count: count)
    }
    var path: String { "/many-headers/\(count)" }
}
