/// The endpoints a ``TestServer`` serves. Use ``TestServer/url(_:)`` to get a route's URL.
///
/// Every route answers every method; `HEAD` gets the same head (including the
/// `Content-Length` the `GET` would have) with no body. Any other path gets
/// `404 Not Found` with the body `no such route`.
public enum Route: Sendable, Hashable {
    /// `/echo` (and any path below it): `200` with a JSON description of the request:
    /// `{"method", "target", "httpVersion", "headers": [[name, value], ...],
    /// "body": <base64>, "bodyLength"}`. Headers keep their order and spelling.
    case echo
    /// `/status/<code>`: that status with its standard reason phrase (or `Status <code>`
    /// if unknown) and the text body `status <code>`; `204` and `304` have no body, and
    /// `401` adds `WWW-Authenticate: Basic realm="Courier"`.
    case status(Int)
    /// `/bytes/<n>`: `200`, `application/octet-stream`, `n` bytes from
    /// ``TestServer/deterministicBytes(count:offset:)`` with a `Content-Length`.
    case bytes(Int)
    /// `/chunked/<n>`: the same bytes as ``bytes(_:)`` sent with
    /// `Transfer-Encoding: chunked` in chunks of at most 1000 bytes (at least two
    /// chunks when `n > 1`).
    case chunked(Int)
    /// `/charset/<name>` (`/charset/none` for nil): text encoded in that charset with
    /// `Content-Type: text/plain; charset=<name>`, or plain `text/plain` and
    /// ISO-8859-1 bytes for nil. ``TestServer/charsetSampleText(for:)`` says which text.
    case charset(String?)
    /// `/charset/<name>?position=middle`: like ``charset(_:)``, but the charset is
    /// a middle parameter: `text/plain; format=flowed; charset=<name>; delsp=yes`.
    case charsetInMiddle(String)
    /// `/headers?name=value&...`: `200`, body `ok`, and each pair as a response header,
    /// sorted by name (dictionaries have no order). Use ``headerFields(_:)`` for
    /// repeated names or a specific order.
    case headers([String: String])
    /// `/headers?name=value&...` with the pairs in this order, repeats allowed
    /// (e.g. two `Set-Cookie` fields), each sent as its own header line.
    case headerFields([HeaderField])

    /// The path and query of the route, percent-encoded, e.g. `"/status/404"` or
    /// `"/headers?X-Name=a%20b"`.
    public var path: String {
        switch self {
        case .echo:
            return "/echo"
        case .status(let code):
            return "/status/\(code)"
        case .bytes(let count):
            return "/bytes/\(count)"
        case .chunked(let count):
            return "/chunked/\(count)"
        case .charset(let name):
            return "/charset/" + (name.map(PercentCoding.encode) ?? "none")
        case .charsetInMiddle(let name):
            return "/charset/\(PercentCoding.encode(name))?position=middle"
        case .headers(let fields):
            let sorted = fields.sorted { $0.key < $1.key }.map { HeaderField(name: $0.key, value: $0.value) }
            return Self.headersPath(sorted)
        case .headerFields(let fields):
            return Self.headersPath(fields)
        }
    }

    private static func headersPath(_ fields: [HeaderField]) -> String {
        guard !fields.isEmpty else { return "/headers" }
        return "/headers?"
            + fields.map { "\(PercentCoding.encode($0.name))=\(PercentCoding.encode($0.value))" }
            .joined(separator: "&")
    }
}
