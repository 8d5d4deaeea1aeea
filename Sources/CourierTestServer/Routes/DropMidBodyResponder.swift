extension Route {
    /// `/drop/body/<n>`: `200` with `Content-Length: n`, then the first `n / 2` bytes
    /// of ``bytes(_:)``, then a clean close (FIN).
    public static func dropMidBody(_ count: Int) -> Route { Route(DropMidBodyResponder(count: count)) }
}

/// Serves ``Route/dropMidBody(_:)``: announces `count` bytes, sends half, hangs up.
struct DropMidBodyResponder: Endpoint {
    let count: Int

    func respond(to exchange: Exchange) throws {
        let head = exchange.head(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/octet-stream")],
            framing: .length(count))
        try exchange.connection.write(head)
        if !exchange.isHead {
            let half = count / 2
            var offset = 0
            while offset < half {
                let length = min(half - offset, DeterministicPattern.blockSize)
                try DeterministicPattern.withBytes(offset: offset, count: length) { try exchange.connection.write($0) }
                offset += length
            }
        }
        exchange.hangUp()
    }
}

extension DropMidBodyResponder {
    static let segments = ["drop"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, target.arguments[0] == "body", let count = target.number(at: 1) else {
            return nil
        }
        self.init(count: count)
    }
    var path: String { "/drop/body/\(count)" }
}
