extension Route {
    /// `/cacheable/<version>?max-age=<s>&control=<value>`: a response a client may cache, for
    /// tests of download caches. `200` with the text body `version <version>`, an
    /// `ETag: "<version>"`, a fixed `Last-Modified`, and `Cache-Control: max-age=<s>` (or the
    /// given `control` value, e.g. `no-store`; neither: no Cache-Control). A request whose
    /// `If-None-Match` names the version, or that has an `If-Modified-Since`, gets `304 Not
    /// Modified` with the same validators and no body. Count requests with
    /// ``TestServer/recordedRequests``; change `version` to make the content change.
    public static func cacheable(version: String, maxAge: Int? = nil, control: String? = nil) -> Route {
        Route(CacheableResponder(version: version, maxAge: maxAge, control: control))
    }
}

/// Serves ``Route/cacheable(version:maxAge:control:)``.
struct CacheableResponder: Endpoint {
    let version: String
    let maxAge: Int?
    let control: String?

    /// A date in the past that never changes, so If-Modified-Since revalidations always match.
    static let lastModified = "Tue, 01 Dec 2026 00:00:00 GMT"

    func respond(to exchange: Exchange) throws {
        var headers = [
            HeaderField(name: "ETag", value: "\"\(version)\""),
            HeaderField(name: "Last-Modified", value: Self.lastModified),
        ]
        if let control {
            headers.append(HeaderField(name: "Cache-Control", value: control))
        } else if let maxAge {
            headers.append(HeaderField(name: "Cache-Control", value: "max-age=\(maxAge)"))
        }
        let request = exchange.request
        let matches = request.value(of: "If-None-Match").map { $0.contains("\"\(version)\"") }
        if matches ?? (request.value(of: "If-Modified-Since") != nil) {
            try exchange.respond(status: 304, headers: headers)
            return
        }
        try exchange.respond(status: 200, text: "version \(version)", headers: headers)
    }
}

extension CacheableResponder {
    static let segments = ["cacheable"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1 else { return nil }
        self.init(
            version: target.arguments[0], maxAge: target.query("max-age").flatMap { Int($0) },
            control: target.query("control"))
    }
    var path: String {
        var query: [String] = []
        if let maxAge { query.append("max-age=\(maxAge)") }
        if let control { query.append("control=\(PercentCoding.encode(control))") }
        return "/cacheable/\(PercentCoding.encode(version))" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }
}
