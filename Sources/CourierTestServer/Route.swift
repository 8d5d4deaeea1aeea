/// The endpoints a ``TestServer`` serves. Use ``TestServer/url(_:)`` to get a route's URL.
///
/// Every route answers every method; `HEAD` gets the same head (including the
/// `Content-Length` the `GET` would have) with no body. Any other path gets
/// `404 Not Found` with the body `no such route`.
///
/// The fault routes (from ``stall`` on) misbehave on purpose, to test how a client
/// copes with servers that hang, dribble, hang up or answer garbage. Those that hold
/// a connection wake early when the client closes it or the server stops, and count
/// the client's close in ``TestServer/connectionsClosedByClient``.
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
    /// ``TestServer/deterministicBytes(count:offset:)`` with a `Content-Length` and
    /// `Accept-Ranges: bytes`. Honours one `Range: bytes=N-` or `bytes=N-M`, for clients that
    /// resume: `206` with `Content-Range: bytes N-M/n` and those bytes, or, when `N >= n`,
    /// `416` with `Content-Range: bytes */n` and no body. Other Range forms are ignored (`200`).
    /// Behind ``redirect(_:to:setCookie:)`` (which ignores Range) it serves a redirected resume.
    case bytes(Int)
    /// `/chunked/<n>`: the same bytes as ``bytes(_:)`` sent with
    /// `Transfer-Encoding: chunked` in chunks of at most 1000 bytes (at least two
    /// chunks when `n > 1`). Ignores Range: always `200` with the whole body.
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

    // MARK: Fault routes

    /// `/stall`: reads the whole request, then sends nothing at all and holds the
    /// connection until the client closes or resets it (counted in
    /// ``TestServer/connectionsClosedByClient``) or the server stops.
    case stall
    /// `/trickle/<n>?interval=<ms>`: `200` with `Content-Length: n` and the bytes of
    /// ``bytes(_:)``; the head goes out at once, then the body one byte at a time with
    /// `ms` milliseconds between bytes. Stops early, counting the close, if the client
    /// goes away. The connection stays open afterwards as usual.
    case trickle(Int, intervalMilliseconds: Int)
    /// `/drop/headers`: sends exactly `HTTP/1.1 200 OK\r\nContent-Type: text/pl` and
    /// closes the connection cleanly (FIN) in the middle of the head.
    case dropMidHeaders
    /// `/drop/body/<n>`: `200` with `Content-Length: n`, then the first `n / 2` bytes
    /// of ``bytes(_:)``, then a clean close (FIN).
    case dropMidBody(Int)
    /// `/drop/chunked/<n>`: `200` with `Transfer-Encoding: chunked` (even for HTTP/1.0),
    /// complete chunks carrying the first `n / 2` bytes of ``bytes(_:)``, then a clean
    /// close (FIN) without the terminating zero-size chunk.
    case dropMidChunked(Int)
    /// `/reset`: reads the whole request, then resets the connection (TCP RST, via
    /// `SO_LINGER` 0) without answering; the client's next `recv` fails with `ECONNRESET`.
    case reset
    /// `/malformed`: answers exactly `HTTP/1.1 abc Broken\r\nContent-Length: 2\r\n\r\nok`,
    /// a status line whose code is not a number, then closes (FIN).
    case malformedStatus
    /// `/stall-times/<key>/<count>`: the first `count` requests for `key` stall like
    /// ``stall``; every later one answers `200` with the text body
    /// `answered after <count> stalls`. The server counts requests per key (see
    /// ``TestServer/hits(forKey:)``), so a client's retries on new connections are
    /// counted together; keys are independent.
    case stallTimes(key: String, count: Int)
    /// `/status-times/<key>/<count>/<status>`: the first `count` requests for `key`
    /// answer like ``status(_:)`` with `status` (its reason phrase, body
    /// `status <status>`); later ones answer `200` with the text body `ok`. Shares the
    /// per-key counter with ``stallTimes(key:count:)``, so use distinct keys.
    case statusTimes(key: String, count: Int, status: Int)
    /// `/stall-mid-body-times/<key>/<count>/<bytes>/<sent>`: the first `count` requests for
    /// `key` get the head of a ``bytes(_:)`` response of `bytes` bytes and its first `sent`
    /// bytes, then a stall like ``stall``; later ones get the whole body. For a client's
    /// progress across a timeout and retry. Shares the per-key counter with
    /// ``stallTimes(key:count:)``.
    case stallMidBodyTimes(key: String, count: Int, bytes: Int, sent: Int)
    /// `/redirect/<status>?to=<url>[&cookie=<name=value>]`: answers `status` (any 3xx) with
    /// `Location: <url>`, the text body `redirecting to <url>`, and `Set-Cookie: <name=value>;
    /// Path=/` when a cookie is given. The URL may be relative.
    case redirect(Int, to: String, setCookie: String? = nil)
    /// `/refuse-body/<status>`: to a request with `Expect: 100-continue`, answers `status` at
    /// once instead of `100 Continue` and never reads the body (the connection then closes);
    /// a request without the expectation gets the same status after its body.
    case refuseBody(Int)
    /// `/token/<key>`: issues a new bearer token for `key` (text body `token-<n>`, n counting
    /// from 1); only the newest token for a key is valid on ``tokenProtected(key:)``.
    case issueToken(key: String)
    /// `/protected/<key>`: `200` with the text body `secret for <token>` when the request
    /// carries `Authorization: Bearer <the newest token for key>`, otherwise `401` with
    /// `WWW-Authenticate: Bearer realm="<key>"` and the body `token required`.
    case tokenProtected(key: String)
    /// `/delay/<ms>`: waits `ms` milliseconds, then answers `200` with the text body
    /// `delayed <ms> ms`. The wait ends early, without an answer, if the client closes
    /// the connection (counted) or the server stops.
    case delay(milliseconds: Int)

    // MARK: Compression routes

    /// `/gzip/bytes/<n>`: the `n` bytes of ``bytes(_:)`` gzip-compressed, with
    /// `Content-Encoding: gzip` and the `Content-Length` of the compressed body. Sent
    /// whatever the request's `Accept-Encoding` says.
    case gzipped(Int)
    /// `/deflate/bytes/<n>`: the `n` bytes of ``bytes(_:)`` as zlib-wrapped deflate
    /// (RFC 1950, what RFC 9110 means by "deflate"), with `Content-Encoding: deflate` and
    /// the compressed `Content-Length`.
    case deflated(Int)
    /// `/gzip/chunked/<n>`: the same compressed body as ``gzipped(_:)`` (byte for byte),
    /// streamed with `Transfer-Encoding: chunked` as the compressor produces it, so no
    /// `Content-Length`; close-delimited for HTTP/1.0.
    case gzippedChunked(Int)
    /// `/gzip/corrupt`: `Content-Encoding: gzip` with a `Content-Length`; the body
    /// (``TestServer/corruptGzipBody``) is a valid gzip header followed by bytes that
    /// are not deflate data.
    case corruptGzip
    /// `/gzip/bomb/<g>`: `Content-Encoding: gzip`, chunked (close-delimited for
    /// HTTP/1.0): a gzip member of 16 MiB of zeros (about 16 KB) repeated `g * 64` times,
    /// a body of about `g * 1` MB that inflates to `g` GiB. Streamed from one shared
    /// member; stops as soon as a write fails because the client went away (not counted
    /// in ``TestServer/connectionsClosedByClient``).
    case gzipBomb(gibibytes: Int)
    /// `/gunzip-echo`: reads a request body (any method) and, when its
    /// `Content-Encoding` is `gzip` (also `x-gzip`, or `deflate` for the zlib wrapper),
    /// inflates it (concatenated gzip members included; at most 4 GiB, streaming). Answers
    /// `200` with the JSON `{"contentEncoding": <the header, "" if none>, "receivedLength":
    /// <body bytes as received>, "decodedLength", "decodedMD5": <32 hex digits>,
    /// "decodedBase64": <the decoded body if at most 1 MiB, else "">}` (keys sorted). A body
    /// without `Content-Encoding` (or `identity`) is described as is. Corrupt or truncated
    /// compressed data gets `400`, more than 4 GiB inflated `413`, another coding `415`,
    /// each with a text body saying why. ``TestServer/md5Hex(of:)`` computes the digest.
    case gunzipEcho

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
        case .stall:
            return "/stall"
        case .trickle(let count, let interval):
            return "/trickle/\(count)?interval=\(interval)"
        case .dropMidHeaders:
            return "/drop/headers"
        case .dropMidBody(let count):
            return "/drop/body/\(count)"
        case .dropMidChunked(let count):
            return "/drop/chunked/\(count)"
        case .reset:
            return "/reset"
        case .malformedStatus:
            return "/malformed"
        case .stallTimes(let key, let count):
            return "/stall-times/\(PercentCoding.encode(key))/\(count)"
        case .statusTimes(let key, let count, let status):
            return "/status-times/\(PercentCoding.encode(key))/\(count)/\(status)"
        case .stallMidBodyTimes(let key, let count, let bytes, let sent):
            return "/stall-mid-body-times/\(PercentCoding.encode(key))/\(count)/\(bytes)/\(sent)"
        case .redirect(let status, let target, let cookie):
            let cookiePart = cookie.map { "&cookie=" + PercentCoding.encode($0) } ?? ""
            return "/redirect/\(status)?to=\(PercentCoding.encode(target))" + cookiePart
        case .refuseBody(let status):
            return "/refuse-body/\(status)"
        case .issueToken(let key):
            return "/token/\(PercentCoding.encode(key))"
        case .tokenProtected(let key):
            return "/protected/\(PercentCoding.encode(key))"
        case .delay(let milliseconds):
            return "/delay/\(milliseconds)"
        case .gzipped(let count):
            return "/gzip/bytes/\(count)"
        case .deflated(let count):
            return "/deflate/bytes/\(count)"
        case .gzippedChunked(let count):
            return "/gzip/chunked/\(count)"
        case .corruptGzip:
            return "/gzip/corrupt"
        case .gzipBomb(let gibibytes):
            return "/gzip/bomb/\(gibibytes)"
        case .gunzipEcho:
            return "/gunzip-echo"
        }
    }

    private static func headersPath(_ fields: [HeaderField]) -> String {
        guard !fields.isEmpty else { return "/headers" }
        return "/headers?"
            + fields.map { "\(PercentCoding.encode($0.name))=\(PercentCoding.encode($0.value))" }
            .joined(separator: "&")
    }
}
