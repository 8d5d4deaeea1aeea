extension Route {
    /// `/encoded/<n>/<coding>/<coding>...`: `200` with the `n` bytes of ``bytes(_:)``
    /// with each content coding applied in the order listed, and
    /// `Content-Encoding: <coding>, <coding>, ...` saying so (RFC 9110 §8.4: the last one
    /// listed was applied last). `gzip` and `x-gzip` gzip the bytes so far, `deflate`
    /// wraps them in zlib deflate (RFC 1950); any other name (`identity`, `br`, `foo`) is
    /// sent as it is over unchanged bytes, so a client must refuse the ones it cannot
    /// decode. Sent whatever the request's `Accept-Encoding` says. With `splitFields`
    /// (`?split=1`), each coding goes in a `Content-Encoding` field of its own, in order, as
    /// RFC 9110 §5.3 lets a list field be split.
    public static func encoded(_ count: Int, codings: [String], splitFields: Bool = false) -> Route {
        Route(EncodedBytesResponder(count: count, codings: codings, splitFields: splitFields))
    }
}

/// Serves ``Route/encoded(_:codings:)``: deterministic bytes through a chain of content
/// codings, with the compressed `Content-Length`. The body is built in memory: keep `n`
/// to a few MiB.
struct EncodedBytesResponder: Endpoint {
    let count: Int
    let codings: [String]
    let splitFields: Bool

    func respond(to exchange: Exchange) throws {
        var body = [UInt8](TestServer.deterministicBytes(count: count))
        for coding in codings {
            switch coding.lowercased() {
            case "gzip", "x-gzip": body = Self.compress(body, format: .gzip)
            case "deflate": body = Self.compress(body, format: .zlib)
            default: break
            }
        }
        var fields = [HeaderField(name: "Content-Type", value: "application/octet-stream")]
        if splitFields {
            fields += codings.map { HeaderField(name: "Content-Encoding", value: $0) }
        } else if !codings.isEmpty {
            fields.append(HeaderField(name: "Content-Encoding", value: codings.joined(separator: ", ")))
        }
        try exchange.respond(status: 200, headers: fields, body: body)
    }

    private static func compress(_ input: [UInt8], format: ZlibCompressor.Format) -> [UInt8] {
        let compressor = ZlibCompressor(format: format)
        var output: [UInt8] = []
        input.withUnsafeBytes { compressor.compress($0) { output.append(contentsOf: $0) } }
        compressor.finish { output.append(contentsOf: $0) }
        return output
    }
}

extension EncodedBytesResponder {
    static let segments = ["encoded"]
    init?(_ target: RouteTarget) {
        guard let count = target.number(at: 0), !target.arguments.dropFirst().contains(where: \.isEmpty),
            target.query.allSatisfy({ $0.name == "split" && $0.value == "1" })
        else { return nil }
        self.init(count: count, codings: Array(target.arguments.dropFirst()), splitFields: !target.query.isEmpty)
    }
    var path: String {
        "/encoded/\(count)" + codings.map { "/" + PercentCoding.encode($0) }.joined() + (splitFields ? "?split=1" : "")
    }
}
