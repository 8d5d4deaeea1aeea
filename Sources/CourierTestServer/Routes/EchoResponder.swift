extension Route {
    /// `/echo` (and any path below it): `200` with a JSON description of the request:
    /// `{"method", "target", "httpVersion", "headers": [[name, value], ...],
    /// "body": <base64>, "bodyLength"}`. Headers keep their order and spelling.
    public static var echo: Route { Route(EchoResponder()) }
}

/// Serves ``Route/echo``: a JSON description of the request as received.
///
/// The JSON is written by hand: the shape is fixed and tiny, and this keeps the hot
/// path free of `JSONSerialization` and guarantees the key order documented on the route.
struct EchoResponder: Endpoint {
    func respond(to exchange: Exchange) throws {
        let request = exchange.request
        var json = "{\"method\": "
        json.reserveCapacity(256 + exchange.body.count * 4 / 3)
        // A HEAD response carries the Content-Length the GET would have (RFC 9110
        // §9.3.2), so describe it as that GET; the body is not sent anyway.
        appendQuoted(exchange.isHead ? "GET" : request.method, to: &json)
        json += ", \"target\": "
        appendQuoted(request.target, to: &json)
        json += ", \"httpVersion\": "
        appendQuoted(request.version, to: &json)
        json += ", \"headers\": ["
        for (index, field) in request.headers.enumerated() {
            json += index == 0 ? "[" : ", ["
            appendQuoted(field.name, to: &json)
            json += ", "
            appendQuoted(field.value, to: &json)
            json += "]"
        }
        json += "], \"body\": \""
        json += exchange.body.base64EncodedString()
        json += "\", \"bodyLength\": \(exchange.body.count)}"
        try exchange.respond(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/json")],
            body: Array(json.utf8))
    }

    /// Appends `text` as a JSON string literal (RFC 8259 §7).
    private func appendQuoted(_ text: String, to json: inout String) {
        json += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": json += "\\\""
            case "\\": json += "\\\\"
            case "\n": json += "\\n"
            case "\r": json += "\\r"
            case "\t": json += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                json.unicodeScalars.append(scalar)
            }
        }
        json += "\""
    }
}

extension EchoResponder {
    static let segments = ["echo"]
    init?(_ target: RouteTarget) {}
    var path: String { "/echo" }
}
