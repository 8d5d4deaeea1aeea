extension Route {
    /// `/status/<code>`: that status with its standard reason phrase (or `Status <code>`
    /// if unknown) and the text body `status <code>`; `204` and `304` have no body, and
    /// `401` adds `WWW-Authenticate: Basic realm="Courier"`.
    public static func status(_ code: Int) -> Route { Route(StatusResponder(code: code)) }
}

/// Serves ``Route/status(_:)``: the given status with body `status <code>`.
struct StatusResponder: Endpoint {
    let code: Int

    func respond(to exchange: Exchange) throws {
        guard code >= 200 else {
            // A 1xx is interim, never a final response; sending one as final would
            // leave the client waiting forever for the real response.
            try exchange.respond(status: 400, text: "status \(code) is not a final status")
            return
        }
        var headers: [HeaderField] = []
        if code == 401 {
            headers.append(HeaderField(name: "WWW-Authenticate", value: "Basic realm=\"Courier\""))
        }
        try exchange.respond(status: code, text: "status \(code)", headers: headers)
    }
}

extension StatusResponder {
    static let segments = ["status"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let code = target.number(at: 0), (100...999).contains(code) else {
            return nil
        }
        self.init(code: code)
    }
    var path: String { "/status/\(code)" }
}
