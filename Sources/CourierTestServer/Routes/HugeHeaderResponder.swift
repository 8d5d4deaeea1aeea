extension Route {
    /// `/huge-header/<n>`: `200` with one header field `X-Huge:` whose value is `n` bytes of
    /// `a`, then the body `ok` (`Content-Length: 2`): one header line far longer than any
    /// client should hold.
    public static func hugeHeader(_ length: Int) -> Route { Route(HugeHeaderResponder(length: length)) }
}

/// Serves ``Route/hugeHeader(_:)``: a single header line of any length.
struct HugeHeaderResponder: Endpoint {
    let length: Int

    func respond(to exchange: Exchange) throws {
        try exchange.watchingForClientClose {
            // The client may give up part-way through the line and close; that is counted.
            try exchange.respond(
                status: 200, headers: [HeaderField(name: "X-Huge", value: String(repeating: "a", count: length))],
                body: Array("ok".utf8))
        }
    }
}

extension HugeHeaderResponder {
    static let segments = ["huge-header"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let length = target.number(at: 0) else { return nil }
        self.init(length: length)
    }
    var path: String { "/huge-header/\(length)" }
}
