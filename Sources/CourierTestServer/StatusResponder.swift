/// Serves ``Route/status(_:)``: the given status with body `status <code>`.
struct StatusResponder: Responder {
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
