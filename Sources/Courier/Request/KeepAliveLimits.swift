import Synchronization

/// How long servers said they keep an idle connection (`Keep-Alive: timeout=N`), by origin.
///
/// ASI gave each kept connection an expiry: the timeout of the request that last used it, which
/// a response's Keep-Alive header set. libcurl instead asks the request that wants a connection
/// how old an idle one may be (`CURLOPT_MAXAGE_CONN`), and keeps no expiry of its own. So the
/// server's word is kept here, and a later request to the same scheme, host and port takes the
/// smaller of its own timeout and the server's: a connection idle longer than the server said
/// is not reused, whatever the next request's setting. A response from that origin without the
/// header forgets it again (the connection it came on then lives by the request's timeout).
///
/// Any thread; its lock is taken only for origins that sent the header. Bounded: at most
/// `capacity` origins, the least recently heard from going first.
final class KeepAliveLimits: Sendable {
    static let shared = KeepAliveLimits()

    private init() {}
    static let capacity = 256

    private struct Limit {
        var seconds: Int
        var heard: UInt64
    }

    private let limits = Locked([String: Limit]())
    /// How many origins the shared instance holds: the common case, none, needs no lock, and no
    /// retain of the instance (a static atomic), as it is asked for every request.
    private static let count = Atomic<Int>(0)

    /// Whether no server has announced a timeout (or each one that did has since been forgotten).
    static var isEmpty: Bool { count.load(ordering: .relaxed) == 0 }

    /// Records the timeout a response from `url`'s origin announced, or forgets the origin's
    /// when the response announced none. Engine thread (as a head arrives); any thread works.
    func note(_ timeout: Int?, from url: String) {
        guard timeout != nil || !Self.isEmpty, let origin = Self.origin(of: url) else { return }
        limits.withLock { limits in
            if let timeout {
                if limits[origin] == nil, limits.count >= Self.capacity,
                    let oldest = limits.min(by: { $0.value.heard < $1.value.heard })?.key
                {
                    limits[oldest] = nil
                }
                limits[origin] = Limit(seconds: timeout, heard: MonotonicClock.nanoseconds())
            } else {
                limits[origin] = nil
            }
            Self.count.store(limits.count, ordering: .relaxed)
        }
    }

    /// The seconds a connection to `url`'s origin may idle, as its server said, if it said.
    func limit(for url: String) -> Int? {
        guard !Self.isEmpty, let origin = Self.origin(of: url) else { return nil }
        return limits.withLock { $0[origin]?.seconds }
    }

    /// "scheme://host:port" of an http(s) URL, lowercased, without user info, path or the
    /// scheme's default port: what libcurl tells connections apart by (a proxy aside).
    static func origin(of url: String) -> String? {
        let text = url.lowercased()
        guard let separator = text.range(of: "://") else { return nil }
        let scheme = text[..<separator.lowerBound]
        var authority = text[separator.upperBound...]
        if let end = authority.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            authority = authority[..<end]
        }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if scheme == "http", authority.hasSuffix(":80") { authority = authority.dropLast(3) }
        if scheme == "https", authority.hasSuffix(":443") { authority = authority.dropLast(4) }
        return scheme + "://" + authority
    }
}
