import Foundation

/// One request as nginx logged it (``InteropServers/accessLog()``).
struct AccessLogEntry: Sendable, Hashable {
    /// nginx's serial number of the connection (`$connection`): two requests with the same
    /// value came over one connection.
    var connection: Int
    /// How many requests this connection had carried, this one included (`$connection_requests`).
    var connectionRequests: Int
    /// "http" or "https" (`$scheme`): which listener took the request.
    var scheme: String
    /// The port of the listener that took the request (`$server_port`), or nil in a line written
    /// before the field was logged: which origin of a ``WebPageSite`` a request went to.
    var serverPort: Int?
    /// The verb (`$request_method`).
    var method: String
    /// The request target as sent, query included and not decoded (`$request_uri`).
    var uri: String
    /// The status nginx answered (`$status`).
    var status: Int
    /// "HTTP/1.0", "HTTP/1.1" or "HTTP/2.0" (`$server_protocol`).
    var serverProtocol: String
    /// The `Authorization` header, or nil when none was sent (or it was empty).
    var authorization: String?
    /// The `Proxy-Authorization` header, or nil when none was sent (or it was empty): proxy
    /// credentials that reached the origin.
    var proxyAuthorization: String?
    /// The `Cookie` header, or nil when none was sent (or it was empty).
    var cookie: String?
    /// The `Range` header, or nil when none was sent (or it was empty).
    var range: String?
    /// The `Accept-Encoding` header, or nil when none was sent (or it was empty).
    var acceptEncoding: String?
    /// The `User-Agent` header, or nil when none was sent (or it was empty).
    var userAgent: String?
    /// The `If-None-Match` header, or nil when none was sent (or it was empty).
    var ifNoneMatch: String?
    /// The `If-Modified-Since` header, or nil when none was sent (or it was empty).
    var ifModifiedSince: String?
    /// The `X-Courier-Test` header, or nil when none was sent (or it was empty): a custom header
    /// a test adds, to see where it went.
    var testHeader: String?
    /// Bytes of the request: line, headers and body (`$request_length`).
    var requestLength: Int
    /// Bytes of the response body sent (`$body_bytes_sent`).
    var bodyBytesSent: Int

    /// The fields of nginx's `log_format` in the order they are written: each is logged as a JSON
    /// string (`escape=json`), so a line is one JSON object of strings.
    static let logFormatFields: [(key: String, variable: String)] = [
        ("connection", "$connection"), ("connectionRequests", "$connection_requests"), ("scheme", "$scheme"),
        ("method", "$request_method"), ("uri", "$request_uri"), ("status", "$status"),
        ("serverProtocol", "$server_protocol"), ("authorization", "$http_authorization"),
        ("proxyAuthorization", "$http_proxy_authorization"), ("cookie", "$http_cookie"),
        ("range", "$http_range"), ("acceptEncoding", "$http_accept_encoding"),
        ("userAgent", "$http_user_agent"), ("requestLength", "$request_length"),
        ("bodyBytesSent", "$body_bytes_sent"), ("serverPort", "$server_port"),
        ("ifNoneMatch", "$http_if_none_match"), ("ifModifiedSince", "$http_if_modified_since"),
        ("testHeader", "$http_x_courier_test"),
    ]

    /// Parses one line of the access log, or returns nil for a line that is not one of ours.
    init?(line: String) {
        guard let data = line.data(using: .utf8),
            let fields = try? JSONDecoder().decode([String: String].self, from: data),
            let connection = fields["connection"].flatMap({ Int($0) }),
            let connectionRequests = fields["connectionRequests"].flatMap({ Int($0) }),
            let status = fields["status"].flatMap({ Int($0) })
        else { return nil }
        func header(_ key: String) -> String? { fields[key].flatMap { $0.isEmpty ? nil : $0 } }
        self.connection = connection
        self.connectionRequests = connectionRequests
        self.status = status
        scheme = fields["scheme"] ?? ""
        serverPort = fields["serverPort"].flatMap { Int($0) }
        method = fields["method"] ?? ""
        uri = fields["uri"] ?? ""
        serverProtocol = fields["serverProtocol"] ?? ""
        authorization = header("authorization")
        proxyAuthorization = header("proxyAuthorization")
        cookie = header("cookie")
        range = header("range")
        acceptEncoding = header("acceptEncoding")
        userAgent = header("userAgent")
        ifNoneMatch = header("ifNoneMatch")
        ifModifiedSince = header("ifModifiedSince")
        testHeader = header("testHeader")
        requestLength = fields["requestLength"].flatMap { Int($0) } ?? 0
        bodyBytesSent = fields["bodyBytesSent"].flatMap { Int($0) } ?? 0
    }

    /// Every request logged in the access log at `url`, oldest first; none when there is no file.
    static func entries(inLogAt url: URL) -> [AccessLogEntry] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        // Only whole lines: a line being written has no newline yet.
        return data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).dropLast(
            data.last == UInt8(ascii: "\n") ? 0 : 1
        ).compactMap { AccessLogEntry(line: String(decoding: $0, as: UTF8.self)) }
    }
}
