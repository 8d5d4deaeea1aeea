extension Route {
    /// `/gzip/bomb/<g>`: `Content-Encoding: gzip`, chunked (close-delimited for
    /// HTTP/1.0): a gzip member of 16 MiB of zeros (about 16 KB) repeated `g * 64` times,
    /// a body of about `g * 1` MB that inflates to `g` GiB. Streamed from one shared
    /// member; stops as soon as a write fails because the client went away (not counted
    /// in ``TestServer/connectionsClosedByClient``).
    public static func gzipBomb(gibibytes: Int) -> Route { Route(GzipBombResponder(gibibytes: gibibytes)) }
}

/// Serves ``Route/gzipBomb(gibibytes:)``: one small gzip member of 16 MiB of zeros sent
/// over and over, 64 times per GiB of inflated body, each member as its own chunk.
///
/// The member is computed once per process and shared, and nothing else is allocated, so
/// the server can send a body that inflates to any size. When the client hangs up the
/// next write fails and the route stops.
struct GzipBombResponder: Endpoint {
    let gibibytes: Int

    /// Inflated bytes per member.
    static let memberInflatedSize = 16 << 20

    /// 16 MiB of zeros as one gzip member (about 16 KB; deflate's best ratio is about
    /// 1000:1). A `static let` is computed lazily and exactly once, even across threads.
    static let member: [UInt8] = {
        let compressor = ZlibCompressor(format: .gzip)
        let zeros = [UInt8](repeating: 0, count: ZlibCompressor.chunkSize)
        var member: [UInt8] = []
        for _ in 0..<(memberInflatedSize / zeros.count) {
            zeros.withUnsafeBytes { compressor.compress($0) { member.append(contentsOf: $0) } }
        }
        compressor.finish { member.append(contentsOf: $0) }
        return member
    }()

    func respond(to exchange: Exchange) throws {
        let body = try StreamedBody(
            exchange: exchange,
            headers: [
                HeaderField(name: "Content-Type", value: "application/octet-stream"),
                HeaderField(name: "Content-Encoding", value: "gzip"),
            ])
        guard !exchange.isHead else { return }
        // Nested loops rather than gibibytes * 64, which could overflow for absurd arguments.
        for _ in 0..<gibibytes {
            for _ in 0..<(1 << 30) / Self.memberInflatedSize {
                try Self.member.withUnsafeBytes { try body.write($0) }
            }
        }
        try body.finish()
    }
}

extension GzipBombResponder {
    static let segments = ["gzip"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, target.arguments[0] == "bomb", let count = target.number(at: 1) else {
            return nil
        }
        self.init(gibibytes: count)
    }
    var path: String { "/gzip/bomb/\(gibibytes)" }
}
