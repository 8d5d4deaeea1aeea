import Foundation

@testable import Courier

/// A request made up from a seeded generator, with what S3 keys and headers get wrong: spaces,
/// `+`, `@`, `=`, `?`, `~`, `%`, non-ASCII keys, odd query parameters, metadata with inner runs of
/// spaces, session tokens, non-default ports, empty and big bodies.
///
/// The key, parameters and headers are kept raw: Courier is given a URL that spells them one of
/// several ways (`urlSpelling`), botocore one its own serializer would make, and both must sign
/// the same thing.
struct RandomS3Request {
    /// How Courier's URL spells the key and the query.
    enum URLSpelling: CaseIterable {
        /// Every byte but the unreserved ones percent-encoded (what botocore sends).
        case awsEncoded
        /// Only what a URL cannot hold raw encoded (Foundation's `urlPathAllowed`), so `+`, `@`,
        /// `=`, `$`, `:` and `~` stay as they are.
        case minimallyEncoded
        /// As `awsEncoded`, with lower-case hex.
        case lowerCaseHex
        /// Every byte of the key percent-encoded, unreserved ones too.
        case everyByteEncoded
    }

    var method: String
    var scheme: String
    var host: String
    var port: Int?
    /// The path's text, decoded, without its leading `/` (`bucket/key` for path-style requests).
    var key: String
    var spelling: URLSpelling
    /// Query parameters, raw; nil value: a bare name (`?acl`).
    var parameters: [(name: String, value: String?)]
    var headers: [(name: String, value: String)]
    var bodySize: Int
    var isUnsigned: Bool
    var accessKey: String
    var secretAccessKey: String
    var sessionToken: String?
    var region: String
    var date: Date
    var isPresigned: Bool
    var expiresIn: Int

    var authority: String { port.map { "\(host):\($0)" } ?? host }

    /// The URL Courier signs.
    var courierURL: URL? {
        var path = "/"
        var query: [String] = []
        switch spelling {
        case .awsEncoded, .lowerCaseHex:
            path += AWSURIEncoding.encode(key, keepingSlash: true)
            query = parameters.map { name, value in
                AWSURIEncoding.encode(name) + (value.map { "=" + AWSURIEncoding.encode($0) } ?? "")
            }
            if spelling == .lowerCaseHex {
                path = Self.lowerCasingHex(path)
                query = query.map(Self.lowerCasingHex)
            }
        case .minimallyEncoded:
            path += key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=#")
            query = parameters.map { name, value in
                (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
                    + (value.map { "=" + ($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") } ?? "")
            }
        case .everyByteEncoded:
            path += key.utf8.map { $0 == UInt8(ascii: "/") ? "/" : String(format: "%%%02X", $0) }.joined()
            query = parameters.map { name, value in
                AWSURIEncoding.encode(name) + (value.map { "=" + AWSURIEncoding.encode($0) } ?? "")
            }
        }
        return URL(
            string: "\(scheme)://\(authority)\(path)" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// The URL botocore signs: the key encoded as botocore's serializer encodes it, no query (the
    /// parameters go separately, and botocore encodes them).
    var botocoreURL: String {
        "\(scheme)://\(authority)/" + Self.pythonQuote(key, keepingSlash: true)
    }

    /// Python's `urllib.parse.quote(text, safe="/~")`, written out independently of
    /// `AWSURIEncoding` so a mistake there cannot hide here.
    static func pythonQuote(_ text: String, keepingSlash: Bool) -> String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~".utf8)
        return text.utf8.map { byte in
            safe.contains(byte) || (keepingSlash && byte == UInt8(ascii: "/"))
                ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }

    private static func lowerCasingHex(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            let digits = rest[percent...].prefix(3)
            result += digits.lowercased()
            rest = rest[digits.endIndex...]
        }
        return result + rest
    }

    // MARK: Making them up

    private static let keyPieces = [
        "photos", "a b", "x+y", "me@example.com", "k=v", "what?", "~tilde", "100%", "é", "日本", "$dollar", "a&b",
        "c,d", "colon:", "semi;", "bang!", "star*", "(paren)", "'quote'", "#hash", "[br]", "dash-under_dot.",
        "  two  spaces", "emoji🙂", "ü",
    ]
    private static let parameterNames = [
        "prefix", "delimiter", "max-keys", "list-type", "continuation-token", "start-after", "x-id", "acl", "uploads",
        "partNumber", "uploadId", "versionId", "response-content-type", "response-content-disposition", "tagging",
        "a b", "ü", "x+y", "with/slash",
    ]
    private static let valuePieces = [
        "J", "photos/2024/", "a b", "x+y", "/", "=", "k=v", "?", "%", "~", "é", "日本", "&", "text/plain",
        "attachment; filename=\"a b.txt\"", "", "2", "1000",
    ]
    private static let headerNames = [
        "Content-Type", "Range", "x-amz-storage-class", "x-amz-acl", "Cache-Control", "Content-Disposition",
        "If-None-Match", "Content-Encoding", "x-amz-server-side-encryption", "X-Amz-Tagging", "Content-Language",
    ]
    private static let headerValuePieces = [
        "text/plain", "bytes=0-9", "REDUCED_REDUNDANCY", "public-read", "max-age=60", "attachment", "\"etag\"",
        "gzip", "AES256", "k=v&k2=v 2", "en", "é", "a  b", "   ", "\t", "x/y", "+", ";", ",",
    ]
    private static let hosts = [
        ("examplebucket.s3.amazonaws.com", false), ("s3.eu-west-1.amazonaws.com", true),
        ("127.0.0.1", true), ("localhost", true), ("minio.internal", true), ("bucket.r2.example", false),
    ]
    private static let regions = ["us-east-1", "eu-west-1", "ap-southeast-2", "auto"]
    private static let methods = ["GET", "PUT", "HEAD", "DELETE", "POST"]

    /// The `index`th request of a run: every fourth one is a presigned URL (a GET or a PUT, no
    /// headers or body, which a presigned URL does not sign).
    static func make(_ index: Int, using random: inout some RandomNumberGenerator) -> RandomS3Request {
        func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func text(_ pieces: [String], upTo count: Int) -> String {
            (0..<Int.random(in: 1...count, using: &random)).map { _ in pick(pieces) }.joined()
        }
        func alphabet(_ characters: String, _ count: Int) -> String {
            let characters = Array(characters)
            return String((0..<count).map { _ in characters[Int.random(in: 0..<characters.count, using: &random)] })
        }

        let isPresigned = index % 4 == 3
        let (host, isPathStyle) = pick(hosts)
        let scheme = chance(80) ? "https" : "http"
        let port: Int? =
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5: nil
            case 5, 6: scheme == "https" ? 443 : 80
            case 7: 9000
            default: 8443
            }
        var segments = (0..<Int.random(in: 1...4, using: &random)).map { _ in text(keyPieces, upTo: 3) }
        if chance(10) { segments.insert("", at: Int.random(in: 0..<segments.count, using: &random)) }  // a//b
        if chance(10) { segments.insert(".", at: Int.random(in: 0..<segments.count, using: &random)) }  // a/./b
        if isPathStyle { segments.insert("bucket-\(index)", at: 0) }
        var parameters: [(name: String, value: String?)] = []
        var usedNames = Set<String>()
        for _ in 0..<Int.random(in: 0...3, using: &random) {
            let name = pick(parameterNames)
            // Presigning (botocore's) keeps one value a name; signing sorts repeats by value.
            guard isPresigned ? usedNames.insert(name).inserted : true else { continue }
            parameters.append((name, chance(15) ? nil : text(valuePieces, upTo: 3)))
        }
        var headers: [(name: String, value: String)] = []
        if !isPresigned {
            var usedHeaders = Set<String>()
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let name = pick(headerNames)
                guard usedHeaders.insert(name.lowercased()).inserted else { continue }
                headers.append((name, text(headerValuePieces, upTo: 4)))
            }
            for number in 0..<Int.random(in: 0...2, using: &random) {
                let name = (chance(50) ? "x-amz-meta-" : "X-Amz-Meta-") + alphabet("abcdefghij", 4) + "\(number)"
                headers.append(
                    (name, "  " + text(["inner   spaces", "a", " ", "é", "\t", "1 2  3", ""], upTo: 4) + " "))
            }
        }
        let method = isPresigned ? pick(["GET", "PUT"]) : pick(methods)
        let hasBody = !isPresigned && (method == "PUT" || method == "POST") && chance(80)
        let bodySize =
            !hasBody
            ? 0
            : index % 25 == 1
                ? Int.random(in: 1_000_000...3_000_000, using: &random)
                : Int.random(in: 0...4096, using: &random)
        return RandomS3Request(
            method: method, scheme: scheme, host: host, port: port, key: segments.joined(separator: "/"),
            spelling: pick(URLSpelling.allCases), parameters: parameters, headers: headers, bodySize: bodySize,
            isUnsigned: !isPresigned && chance(10),
            accessKey: "AKIA" + alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
            secretAccessKey: alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 40),
            sessionToken: chance(40)
                ? alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", 60) : nil,
            region: pick(regions),
            date: Date(timeIntervalSince1970: Double(Int.random(in: 1_262_304_000...1_893_456_000, using: &random))),
            isPresigned: isPresigned, expiresIn: Int.random(in: 1...604_800, using: &random))
    }
}
