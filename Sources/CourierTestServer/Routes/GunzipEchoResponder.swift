import Foundation

extension Route {
    /// `/gunzip-echo`: reads a request body (any method) and, when its
    /// `Content-Encoding` is `gzip` (also `x-gzip`, or `deflate` for the zlib wrapper),
    /// inflates it (concatenated gzip members included; at most 4 GiB, streaming). Answers
    /// `200` with the JSON `{"contentEncoding": <the header, "" if none>, "receivedLength":
    /// <body bytes as received>, "decodedLength", "decodedMD5": <32 hex digits>,
    /// "decodedBase64": <the decoded body if at most 1 MiB, else "">}` (keys sorted). A body
    /// without `Content-Encoding` (or `identity`) is described as is. Corrupt or truncated
    /// compressed data gets `400`, more than 4 GiB inflated `413`, another coding `415`,
    /// each with a text body saying why. ``TestServer/md5Hex(of:)`` computes the digest.
    public static var gunzipEcho: Route { Route(GunzipEchoResponder()) }
}

/// Serves ``Route/gunzipEcho``: describes the request body after undoing its
/// `Content-Encoding`, so a client's compressed uploads can be checked.
///
/// Inflation streams into the MD5 and a small sample, so a body that inflates to
/// gigabytes costs no more memory than the compressed body the server already holds.
struct GunzipEchoResponder: Endpoint {
    /// The most bytes a body may inflate to (4 GiB); more is answered with 413.
    static let inflateLimit = 4 << 30
    /// Bodies that decode to at most this many bytes (1 MiB) are echoed in base64.
    static let echoLimit = 1 << 20

    /// The JSON reply, documented on ``Route/gunzipEcho``.
    private struct Reply: Encodable {
        var contentEncoding: String
        var receivedLength: Int
        var decodedLength: Int
        var decodedMD5: String
        var decodedBase64: String
    }

    func respond(to exchange: Exchange) throws {
        let encoding = exchange.request.value(of: "Content-Encoding")?.trimmingCharacters(in: .whitespaces) ?? ""
        var digest = MD5()
        var decodedLength = 0
        var sample = Data()
        let consume = { (chunk: UnsafeRawBufferPointer) in
            digest.update(chunk)
            decodedLength += chunk.count
            if decodedLength <= Self.echoLimit {
                sample.append(contentsOf: chunk)
            } else if !sample.isEmpty {
                sample = Data()  // Too long to echo: stop holding it.
            }
        }
        switch encoding.lowercased() {
        case "", "identity":
            exchange.body.withUnsafeBytes(consume)
        case "gzip", "x-gzip", "deflate":
            do {
                try exchange.body.withUnsafeBytes {
                    try ZlibDecompressor.inflate($0, limit: Self.inflateLimit, into: consume)
                }
            } catch let failure as ZlibDecompressor.Failure {
                return try refuse(failure, exchange: exchange)
            }
        default:
            return try exchange.respond(status: 415, text: "unsupported Content-Encoding: \(encoding)")
        }
        let reply = Reply(
            contentEncoding: encoding, receivedLength: exchange.body.count, decodedLength: decodedLength,
            decodedMD5: digest.finalizeHex(),
            decodedBase64: decodedLength <= Self.echoLimit ? sample.base64EncodedString() : "")
        let encoder = JSONEncoder()
        // Sorted so the text is the same every time; JSON readers do not care.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try exchange.respond(
            status: 200, headers: [HeaderField(name: "Content-Type", value: "application/json")],
            body: Array(try encoder.encode(reply)))
    }

    private func refuse(_ failure: ZlibDecompressor.Failure, exchange: Exchange) throws {
        switch failure {
        case .corrupt(let reason):
            try exchange.respond(status: 400, text: "could not inflate the request body: \(reason)")
        case .truncated:
            try exchange.respond(
                status: 400, text: "could not inflate the request body: it ends inside the compressed stream")
        case .tooLarge(let limit):
            try exchange.respond(status: 413, text: "the request body inflates to more than \(limit) bytes")
        }
    }
}

extension GunzipEchoResponder {
    static let segments = ["gunzip-echo"]
    init?(_ target: RouteTarget) {
        guard target.arguments.isEmpty else { return nil }
    }
    var path: String { "/gunzip-echo" }
}
