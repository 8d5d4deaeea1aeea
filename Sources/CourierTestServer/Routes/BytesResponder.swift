extension Route {
    /// `/bytes/<n>`: `200`, `application/octet-stream`, `n` bytes from
    /// ``TestServer/deterministicBytes(count:offset:)`` with a `Content-Length` and
    /// `Accept-Ranges: bytes`. Honours one `Range: bytes=N-` or `bytes=N-M`, for clients that
    /// resume: `206` with `Content-Range: bytes N-M/n` and those bytes, or, when `N >= n`,
    /// `416` with `Content-Range: bytes */n` and no body. Other Range forms are ignored (`200`).
    /// Behind ``redirect(_:to:setCookie:)`` (which ignores Range) it serves a redirected resume.
    public static func bytes(_ count: Int) -> Route { Route(BytesResponder(count: count)) }
}

/// Serves ``Route/bytes(_:)``: `count` deterministic bytes with a `Content-Length`, and the
/// part asked for by a `Range: bytes=N-` or `bytes=N-M` request (206 with `Content-Range`;
/// 416 past the end), so clients can resume.
///
/// Streams from a shared pattern buffer in 256 KiB writes, so a multi-gigabyte body
/// never allocates more than the pattern itself.
struct BytesResponder: Endpoint {
    let count: Int

    func respond(to exchange: Exchange) throws {
        var status = 200
        var start = 0
        var end = count
        var headers = [
            HeaderField(name: "Content-Type", value: "application/octet-stream"),
            HeaderField(name: "Accept-Ranges", value: "bytes"),
        ]
        if let range = exchange.request.value(of: "Range").flatMap(Self.parse) {
            guard range.start < count else {
                headers.append(HeaderField(name: "Content-Range", value: "bytes */\(count)"))
                try exchange.respond(status: 416, headers: headers)
                return
            }
            status = 206
            start = range.start
            end = min(count, (range.end ?? count - 1) + 1)
            headers.append(HeaderField(name: "Content-Range", value: "bytes \(start)-\(end - 1)/\(count)"))
        }
        var first = exchange.head(status: status, headers: headers, framing: .length(end - start))
        guard !exchange.isHead else {
            try exchange.connection.write(first)
            return
        }
        // The head and the start of the body go out together (one segment for small bodies).
        let firstLength = min(end - start, DeterministicPattern.blockSize - first.count)
        DeterministicPattern.withBytes(offset: start, count: firstLength) { first.append(contentsOf: $0) }
        try exchange.connection.write(first)
        var offset = start + firstLength
        while offset < end {
            let length = min(end - offset, DeterministicPattern.blockSize)
            try DeterministicPattern.withBytes(offset: offset, count: length) { try exchange.connection.write($0) }
            offset += length
        }
    }

    /// "bytes=N-" or "bytes=N-M" (one range only; anything else is ignored, as servers may).
    static func parse(_ value: String) -> (start: Int, end: Int?)? {
        guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let parts = value.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0]), start >= 0 else { return nil }
        if parts[1].isEmpty { return (start, nil) }
        guard let end = Int(parts[1]), end >= start else { return nil }
        return (start, end)
    }
}

extension BytesResponder {
    static let segments = ["bytes"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let count = target.number(at: 0) else { return nil }
        self.init(count: count)
    }
    var deterministicByteCount: Int? { count }
    var path: String { "/bytes/\(count)" }
}
