/// Serves ``Route/redirect(_:to:setCookie:)``: a redirect to any URL, relative or absolute,
/// with any 3xx status, setting a cookie on the way if asked.
struct RedirectResponder: Responder {
    let status: Int
    let target: String
    let cookie: String?

    func respond(to exchange: Exchange) throws {
        var headers = [HeaderField(name: "Location", value: target)]
        if let cookie { headers.append(HeaderField(name: "Set-Cookie", value: cookie + "; Path=/")) }
        try exchange.respond(status: status, text: "redirecting to \(target)", headers: headers)
    }
}
