extension Route {
    /// `/refuse-body/<status>`: to a request with `Expect: 100-continue`, answers `status` at
    /// once instead of `100 Continue` and never reads the body (the connection then closes);
    /// a request without the expectation gets the same status after its body.
    public static func refuseBody(_ status: Int) -> Route { Route(RefuseBodyResponder(status: status)) }
}

/// Serves ``Route/refuseBody(_:)``: a final status before the body, for clients that send
/// `Expect: 100-continue` and must stop uploading when refused.
struct RefuseBodyResponder: Endpoint {
    let status: Int

    func respond(to exchange: Exchange) throws {
        try StatusResponder(code: status).respond(to: exchange)
    }

    func respondInsteadOfContinue(to exchange: Exchange) throws -> Bool {
        try exchange.respond(status: status, text: "body refused before it was sent")
        return true
    }
}

extension RefuseBodyResponder {
    static let segments = ["refuse-body"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let status = target.number(at: 0), (200...599).contains(status) else {
            return nil
        }
        self.init(status: status)
    }
    var path: String { "/refuse-body/\(status)" }
}
