extension Route {
    /// Recognises a request-target, the inverse of ``path``.
    ///
    /// Accepts origin-form (`/status/404`) and absolute-form
    /// (`http://127.0.0.1:8080/status/404`, as sent to a proxy). A `/headers` query
    /// with distinct names parses as ``headers(_:)``, one with repeated names as
    /// ``headerFields(_:)``. `/charset/none` parses as `.charset(nil)`. Numbers must be
    /// plain non-negative decimals, and `/trickle` needs its `interval` query.
    ///
    /// - Returns: nil for paths the server does not serve (answered with 404).
    public init?(path target: String) {
        let (path, query) = Self.split(target)
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let first = segments.first else { return nil }
        let argument = segments.count == 2 ? PercentCoding.decode(segments[segments.startIndex + 1]) : nil

        switch (first, argument) {
        case ("echo", _):
            self = .echo
        case ("status", let code?):
            guard let code = Self.number(code), (100...999).contains(code) else { return nil }
            self = .status(code)
        case ("bytes", let count?):
            guard let count = Self.number(count) else { return nil }
            self = .bytes(count)
        case ("chunked", let count?):
            guard let count = Self.number(count) else { return nil }
            self = .chunked(count)
        case ("charset", let name?) where !name.isEmpty:
            let middle = Self.queryPairs(query).contains { $0.name == "position" && $0.value == "middle" }
            if middle {
                self = .charsetInMiddle(name)
            } else {
                self = .charset(name == "none" ? nil : name)
            }
        case ("headers", nil) where segments.count == 1:
            let fields = Self.queryPairs(query)
            if Set(fields.map(\.name)).count == fields.count {
                self = .headers(Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.value) }))
            } else {
                self = .headerFields(fields)
            }
        default:
            let arguments = segments.dropFirst().map { PercentCoding.decode($0) }
            guard let route = Self.faultRoute(first, arguments, query: query) ?? Self.compressionRoute(first, arguments)
            else { return nil }
            self = route
        }
    }

    /// Recognises the fault routes, which take zero to three path arguments.
    /// - Parameter arguments: the percent-decoded path segments after the first.
    private static func faultRoute(_ name: Substring, _ arguments: [String], query: Substring) -> Route? {
        switch (name, arguments.count) {
        case ("stall", 0): return .stall
        case ("reset", 0): return .reset
        case ("malformed", 0): return .malformedStatus
        case ("drop", 1) where arguments[0] == "headers": return .dropMidHeaders
        case ("drop", 2):
            guard let count = number(arguments[1]) else { return nil }
            switch arguments[0] {
            case "body": return .dropMidBody(count)
            case "chunked": return .dropMidChunked(count)
            default: return nil
            }
        case ("trickle", 1):
            let interval = queryPairs(query).first { $0.name == "interval" }.flatMap { number($0.value) }
            guard let count = number(arguments[0]), let interval else { return nil }
            return .trickle(count, intervalMilliseconds: interval)
        case ("delay", 1):
            return number(arguments[0]).map { .delay(milliseconds: $0) }
        case ("stall-times", 2):
            return number(arguments[1]).map { .stallTimes(key: arguments[0], count: $0) }
        case ("stall-mid-body-times", 4):
            guard let count = number(arguments[1]), let bytes = number(arguments[2]), let sent = number(arguments[3]),
                sent <= bytes
            else { return nil }
            return .stallMidBodyTimes(key: arguments[0], count: count, bytes: bytes, sent: sent)
        case ("redirect", 1):
            let pairs = queryPairs(query)
            let target = pairs.first { $0.name == "to" }?.value
            guard let status = number(arguments[0]), (300...399).contains(status), let target else { return nil }
            return .redirect(status, to: target, setCookie: pairs.first { $0.name == "cookie" }?.value)
        case ("refuse-body", 1):
            guard let status = number(arguments[0]), (200...599).contains(status) else { return nil }
            return .refuseBody(status)
        case ("token", 1): return .issueToken(key: arguments[0])
        case ("protected", 1): return .tokenProtected(key: arguments[0])
        case ("status-times", 3):
            guard let count = number(arguments[1]), let status = number(arguments[2]), (100...999).contains(status)
            else { return nil }
            return .statusTimes(key: arguments[0], count: count, status: status)
        default:
            return nil
        }
    }

    /// Recognises the compression routes (`/gzip/...`, `/deflate/bytes/<n>`, `/gunzip-echo`).
    /// - Parameter arguments: the percent-decoded path segments after the first.
    private static func compressionRoute(_ name: Substring, _ arguments: [String]) -> Route? {
        switch (name, arguments.count) {
        case ("gunzip-echo", 0): return .gunzipEcho
        case ("gzip", 1) where arguments[0] == "corrupt": return .corruptGzip
        case ("gzip", 2):
            guard let count = number(arguments[1]) else { return nil }
            switch arguments[0] {
            case "bytes": return .gzipped(count)
            case "chunked": return .gzippedChunked(count)
            case "bomb": return .gzipBomb(gibibytes: count)
            default: return nil
            }
        case ("deflate", 2) where arguments[0] == "bytes":
            return number(arguments[1]).map { .deflated($0) }
        default:
            return nil
        }
    }

    /// Splits a request-target into path and query (without the `?`), dropping any
    /// scheme and authority of an absolute-form target and any fragment.
    private static func split(_ target: String) -> (path: Substring, query: Substring) {
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        if let scheme = rest.range(of: "://") {
            let afterAuthority = rest[scheme.upperBound...]
            rest = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? "/"
        }
        guard let mark = rest.firstIndex(of: "?") else { return (rest, "") }
        return (rest[..<mark], rest[rest.index(after: mark)...])
    }

    /// `name=value` pairs of a query, percent-decoded, in order. A pair without `=`
    /// has an empty value.
    private static func queryPairs(_ query: Substring) -> [HeaderField] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return HeaderField(
                name: PercentCoding.decode(parts[0]), value: parts.count > 1 ? PercentCoding.decode(parts[1]) : "")
        }
    }

    /// A non-negative decimal number, digits only (no sign, no spaces).
    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}
