import Glibc

extension Route {
    /// `/last-modified/<seconds>`: a file last changed at `seconds` after the epoch, for tests
    /// of clients that ask only for what is newer (wget's and courier's `-N`). `200` with the
    /// text body `modified at <seconds>` and `Last-Modified` that time, unless the request's
    /// `If-Modified-Since` is that time or later: then `304 Not Modified` with no body. An
    /// `If-Modified-Since` that is not an IMF-fixdate is ignored, as RFC 9110 §13.1.3 says.
    public static func lastModified(_ seconds: Int) -> Route {
        Route(LastModifiedResponder(seconds: seconds))
    }
}

/// Serves ``Route/lastModified(_:)``.
struct LastModifiedResponder: Endpoint {
    let seconds: Int

    func respond(to exchange: Exchange) throws {
        let headers = [HeaderField(name: "Last-Modified", value: HTTPDate.format(time_t(seconds)))]
        if let since = exchange.request.value(of: "If-Modified-Since").flatMap(Self.parse), since >= seconds {
            try exchange.respond(status: 304, headers: headers)
            return
        }
        try exchange.respond(status: 200, text: "modified at \(seconds)", headers: headers)
    }

    /// Seconds since the epoch of an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT").
    static func parse(_ text: String) -> Int? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[5] == "GMT", let day = Int32(fields[1]),
            let month = months.firstIndex(of: String(fields[2])), let year = Int32(fields[3])
        else { return nil }
        let clock = fields[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        (parts.tm_hour, parts.tm_min, parts.tm_sec) = (clock[0], clock[1], clock[2])
        return Int(timegm(&parts))
    }
}

extension LastModifiedResponder {
    static let segments = ["last-modified"]
    init?(_ target: RouteTarget) {
        guard target.arguments.count == 1, let seconds = Int(target.arguments[0]), seconds >= 0 else { return nil }
        self.init(seconds: seconds)
    }
    var path: String { "/last-modified/\(seconds)" }
}
