import Foundation

/// What a `DownloadCache` keeps beside a body, as JSON in `<key>.cachedheaders`:
///
///     {"version":1,"url":"http://host/a","statusCode":200,
///      "headers":[{"name":"Content-Type","value":"text/plain"}, …],
///      "storedAt":1764612680.5,"expires":1764612740.5,"bodyLength":42}
///
/// `url` is the key with a password masked (`CacheKey.recordedURL`). Dates are seconds since
/// 1970 (`expires` absent when nothing gave one). `bodyLength` is the body file's size when it
/// was stored: a body of another size is from a damaged or mixed-up entry, and the entry is a
/// miss.
struct CacheEntryMetadata: Codable, Sendable, Equatable {
    struct Field: Codable, Sendable, Equatable {
        var name: String
        var value: String
    }

    static let currentVersion = 1

    var version: Int
    var url: String
    var statusCode: Int
    /// In the order they arrived (a `Set-Cookie` field per cookie).
    var headers: [Field]
    var storedAt: TimeInterval
    var expires: TimeInterval?
    var bodyLength: Int

    init(
        url: String, statusCode: Int, headers: HTTPHeaders, storedAt: Date, expires: Date?, bodyLength: Int
    ) {
        version = Self.currentVersion
        self.url = url
        self.statusCode = statusCode
        self.headers = headers.map { Field(name: $0.name, value: $0.value) }
        self.storedAt = storedAt.timeIntervalSince1970
        self.expires = expires?.timeIntervalSince1970
        self.bodyLength = bodyLength
    }

    var httpHeaders: HTTPHeaders {
        HTTPHeaders(headers.map { ($0.name, $0.value) })
    }

    var expiryDate: Date? { expires.map(Date.init(timeIntervalSince1970:)) }

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The metadata in `data`, or nil when it is not this format (damaged, truncated, another
    /// version).
    static func decode(_ data: Data) -> CacheEntryMetadata? {
        guard let metadata = try? JSONDecoder().decode(CacheEntryMetadata.self, from: data),
            metadata.version == currentVersion, metadata.bodyLength >= 0
        else { return nil }
        return metadata
    }
}
