extension Route {
    /// `/gzip/then-corrupt/<ms>`: `Content-Encoding: gzip`, chunked (close-delimited for
    /// HTTP/1.0): a whole gzip member of 1 MiB of zeros (about 1 KB) as one chunk, then,
    /// `ms` milliseconds later, ``corruptGzip``'s body as a second member, whose data after
    /// its header is not deflate data. For a client that must report the corruption even
    /// when the bad part reaches it late, for example after it paused the transfer.
    public static func gzipThenCorrupt(afterMilliseconds milliseconds: Int) -> Route {
        Route(GzipThenCorruptResponder(milliseconds: milliseconds))
    }
}

/// Serves ``Route/gzipThenCorrupt(afterMilliseconds:)``: a good member, a wait, a bad one.
struct GzipThenCorruptResponder: Endpoint {
    let milliseconds: Int

    /// Inflated bytes of the good member.
    static let goodInflatedSize = 1 << 20

    /// 1 MiB of zeros as one gzip member; computed once, even across threads.
    static let goodMember: [UInt8] = {
        let compressor = ZlibCompressor(format: .gzip)
        let zeros = [UInt8](repeating: 0, count: goodInflatedSize)
        var member: [UInt8] = []
        zeros.withUnsafeBytes { compressor.compress($0) { member.append(contentsOf: $0) } }
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
        try exchange.watchingForClientClose {
            try Self.goodMember.withUnsafeBytes { try body.write($0) }
            // Its own write after a wait: the client reads the two parts separately.
            try exchange.connection.sleep(seconds: Double(milliseconds) / 1000)
            try CorruptGzipResponder.body.withUnsafeBytes { try body.write($0) }
            try body.finish()
        }
    }
}

extension GzipThenCorruptResponder {
    static let segments = ["gzip"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 2, target.arguments[0] == "then-corrupt",
            let milliseconds = target.number(at: 1)
        else { return nil }
        self.init(milliseconds: milliseconds)
    }
    var path: String { "/gzip/then-corrupt/\(milliseconds)" }
}
