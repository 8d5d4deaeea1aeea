extension Route {
    /// The responder that serves this route. Add new routes here.
    var responder: any Responder {
        switch self {
        case .echo: return EchoResponder()
        case .status(let code): return StatusResponder(code: code)
        case .bytes(let count): return BytesResponder(count: count)
        case .chunked(let count): return ChunkedBytesResponder(count: count)
        case .charset(let name): return CharsetResponder(charset: name, inMiddle: false)
        case .charsetInMiddle(let name):
            // "none" means no charset parameter, as for `.charset(nil)`.
            return CharsetResponder(charset: name.lowercased() == "none" ? nil : name, inMiddle: true)
        case .headers(let fields):
            return HeadersResponder(
                fields: fields.sorted { $0.key < $1.key }.map { HeaderField(name: $0.key, value: $0.value) })
        case .headerFields(let fields): return HeadersResponder(fields: fields)
        case .stall: return StallResponder()
        case .trickle(let count, let interval): return TrickleResponder(count: count, intervalMilliseconds: interval)
        case .dropMidHeaders: return DropMidHeadersResponder()
        case .dropMidBody(let count): return DropMidBodyResponder(count: count)
        case .dropMidChunked(let count): return DropMidChunkedResponder(count: count)
        case .reset: return ResetResponder()
        case .malformedStatus: return MalformedStatusResponder()
        case .stallTimes(let key, let count): return StallTimesResponder(key: key, count: count)
        case .redirect(let status, let target, let cookie):
            return RedirectResponder(status: status, target: target, cookie: cookie)
        case .refuseBody(let status): return StatusResponder(code: status)
        case .issueToken(let key): return TokenResponder(key: key, issues: true)
        case .tokenProtected(let key): return TokenResponder(key: key, issues: false)
        case .stallMidBodyTimes(let key, let count, let bytes, let sent):
            return StallMidBodyTimesResponder(key: key, count: count, bytes: bytes, sent: sent)
        case .statusTimes(let key, let count, let status):
            return StatusTimesResponder(key: key, count: count, status: status)
        case .delay(let milliseconds): return DelayResponder(milliseconds: milliseconds)
        case .gzipped(let count): return CompressedBytesResponder(count: count, format: .gzip)
        case .deflated(let count): return CompressedBytesResponder(count: count, format: .zlib)
        case .gzippedChunked(let count): return GzipChunkedResponder(count: count)
        case .corruptGzip: return CorruptGzipResponder()
        case .gzipBomb(let gibibytes): return GzipBombResponder(gibibytes: gibibytes)
        case .gunzipEcho: return GunzipEchoResponder()
        }
    }
}
