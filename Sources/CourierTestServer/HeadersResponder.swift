/// Serves ``Route/headers(_:)`` and ``Route/headerFields(_:)``: body `ok`, plus each
/// field as its own response header line, in order (repeats stay separate lines, so
/// tests can check how a client joins them).
///
/// Fields are sent verbatim, even ones that clash with the server's own framing
/// headers (a second `Content-Length`, say), so tests can provoke such conflicts.
struct HeadersResponder: Responder {
    let fields: [HeaderField]

    func respond(to exchange: Exchange) throws {
        var headers = fields
        // Only add a Content-Type when the query did not ask for a specific one.
        if !fields.contains(where: { $0.name.equalsIgnoringASCIICase("Content-Type") }) {
            headers.insert(HeaderField(name: "Content-Type", value: "text/plain; charset=utf-8"), at: 0)
        }
        try exchange.respond(status: 200, headers: headers, body: Array("ok".utf8))
    }
}
