/// One kind of route: its arguments, how its path is written and read, and how it responds.
///
/// Adding a route means one file under `Routes/`: a type conforming to `Endpoint` (holding
/// the route's arguments, so it is the responder too), a documented static member on
/// ``Route`` that makes it, and its entry in ``RouteRegistry/endpoints``.
protocol Endpoint: Responder, Hashable {
    /// The first path segments (e.g. `"status"` for `/status/<code>`) this kind's paths
    /// start with; ``RouteRegistry`` offers a target only to the kinds listing its first segment.
    static var segments: [String] { get }

    /// Parses a request-target whose first segment is one of ``segments``.
    /// - Returns: nil if the target is not a valid path of this kind (answered with 404
    ///   unless another kind takes it).
    init?(_ target: RouteTarget)

    /// The percent-encoded path and query, the inverse of ``init(_:)``.
    var path: String { get }

    /// The number of deterministic bytes the body is, for routes that serve exactly
    /// those (see ``Route/deterministicByteCount``). The default is nil.
    var deterministicByteCount: Int? { get }

    /// Called instead of sending `100 Continue` when the request carries
    /// `Expect: 100-continue`, before its body is read.
    /// - Returns: true if the route answered (the body is then never read and the
    ///   connection closes); false to continue as usual. The default returns false.
    func respondInsteadOfContinue(to exchange: Exchange) throws -> Bool
}

extension Endpoint {
    var deterministicByteCount: Int? { nil }

    func respondInsteadOfContinue(to exchange: Exchange) throws -> Bool { false }

    /// Equality across kinds, for ``Route``'s `==`.
    func isEqual(to other: any Endpoint) -> Bool {
        (other as? Self) == self
    }
}

/// A request-target split the way routes parse it.
struct RouteTarget {
    /// The first path segment, percent-decoded (`"status"` for `/status/404`).
    let first: String
    /// The percent-decoded path segments after the first, empty ones included.
    let arguments: [String]
    /// The query's `name=value` pairs, percent-decoded, in order; a pair without `=` has
    /// an empty value.
    let query: [HeaderField]

    /// Splits a request-target, dropping any scheme and authority of an absolute-form
    /// target and any fragment.
    init(_ target: String) {
        var rest = Substring(target)
        if let fragment = rest.firstIndex(of: "#") { rest = rest[..<fragment] }
        if let scheme = rest.range(of: "://") {
            let afterAuthority = rest[scheme.upperBound...]
            rest = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? "/"
        }
        var queryText: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        first = segments.first.map(PercentCoding.decode) ?? ""
        arguments = segments.dropFirst().map(PercentCoding.decode)
        query = queryText.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return HeaderField(
                name: PercentCoding.decode(parts[0]), value: parts.count > 1 ? PercentCoding.decode(parts[1]) : "")
        }
    }

    /// The value of the first query pair named `name`.
    func query(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The argument at `index` as a number, if there is one and it is a plain decimal.
    func number(at index: Int) -> Int? {
        index < arguments.count ? Self.number(arguments[index]) : nil
    }

    /// A non-negative decimal number, digits only (no sign, no spaces).
    static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}
