import struct Foundation.Date
import struct Foundation.TimeInterval
import struct Foundation.URL

/// AWS Signature Version 4 for S3 and the services that speak it (MinIO, Ceph, R2, …): signs a
/// request's headers (`sign`) or makes a presigned URL (`presign`).
///
/// Use it on its own to sign a request you build yourself. Safe to use from any thread at once:
/// its only state besides the credentials is the day's signing key, kept behind a lock.
///
/// What is signed follows S3's rules (AWS's "Signature Calculations for the Authorization
/// Header" page), whatever `service` is:
/// - the path: decoded, then each segment encoded once (RFC 3986's unreserved characters and `/`
///   kept), never normalised, so `a//b/./c` is signed as it is;
/// - the query: names and values encoded (a space as `%20`, `/` as `%2F`), sorted, `acl=` for a
///   bare `acl`;
/// - the headers: `host`, and every header the signed request carries, names lower-cased, values
///   trimmed with inner runs of spaces made one.
///
/// A URL's `+` is a plus sign and is signed as `%2B`, as `%2B` is. S3 reads a bare `+` in a path
/// or query as a space, so send a request to a URL whose key is encoded the way it is signed
/// (`%2B`, as `presign`'s URLs have it).
public struct AWSSignatureV4: Sendable {
    let accessKey: String
    let secretAccessKey: String
    let sessionToken: String?
    let region: String
    let service: String
    /// The last signing key derived, its day and its scope: the key changes once a day, and
    /// deriving it is four HMACs. Shared by copies of this signer, whose credentials are the same.
    let signingKeys = Locked<SigningDay?>(nil)

    /// The payload hash of an empty body: the hex SHA-256 of no bytes.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash that leaves the body unsigned (`UNSIGNED-PAYLOAD`), for a body too costly
    /// to read twice (once to hash, once to send); over HTTPS, TLS protects it on the way.
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The algorithm's name, first in the `Authorization` header and the string to sign.
    static let algorithm = "AWS4-HMAC-SHA256"
    /// The longest a presigned URL can last: 7 days, S3's limit.
    static let longestPresignedLifetime = 604_800

    /// A signer with these credentials, for `region` (`us-east-1`, `eu-west-1`, …; what a
    /// non-AWS service expects, often `us-east-1`) and `service` (`s3`).
    /// - Parameter sessionToken: temporary credentials' token, sent as `x-amz-security-token`
    ///   (or `X-Amz-Security-Token` in a presigned URL) and signed with the rest.
    public init(
        accessKey: String, secretAccessKey: String, sessionToken: String? = nil, region: String,
        service: String = "s3"
    ) {
        self.accessKey = accessKey
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// `headers` signed for a request: the same headers plus `x-amz-date`, `x-amz-content-sha256`
    /// (for service `s3`, set to `payloadHash`), `x-amz-security-token` (with a session token)
    /// and `Authorization`; any of those already in `headers` is replaced.
    ///
    /// The signature covers `host` (taken from `url` unless `headers` has a `Host`) and every
    /// header returned but `Authorization`, so send exactly these, and nothing that changes them
    /// on the way (Courier's own `User-Agent` and `Accept-Encoding` are not among them, and S3
    /// does not need them signed).
    /// - Parameters:
    ///   - method: the request's method, as sent (`GET`, `PUT`, …).
    ///   - payloadHash: the body's hex SHA-256 (`emptyPayloadHash` for none), or `unsignedPayload`.
    ///   - date: the moment to sign for, normally now: S3 refuses one more than 15 minutes off.
    public func sign(method: String, url: URL, headers: HTTPHeaders, payloadHash: String, date: Date) -> HTTPHeaders {
        signing(method: method, url: url, headers: headers, payloadHash: payloadHash, date: date).headers
    }

    /// `sign`'s headers and the strings it computed on the way.
    func signing(
        method: String, url: URL, headers: HTTPHeaders, payloadHash: String, date: Date
    ) -> (headers: HTTPHeaders, computation: Computation) {
        let time = AWSTimestamp(date)
        var signed = headers
        signed.remove(name: "Authorization")
        signed["x-amz-date"] = time.dateTime
        if service == "s3" { signed["x-amz-content-sha256"] = payloadHash }
        if let sessionToken { signed["x-amz-security-token"] = sessionToken }
        let target = AWSRequestTarget(url)
        let computation = compute(
            method: method, target: target, query: target.parameters.map(\.encoded),
            headers: Self.canonicalHeaders(signed, host: target.host), payloadHash: payloadHash, time: time)
        var authorization: [UInt8] = []
        authorization.reserveCapacity(
            Self.algorithm.utf8.count + accessKey.utf8.count + computation.signedHeadersBytes.count + 160)
        authorization += Self.algorithm.utf8
        authorization += " Credential=".utf8
        authorization += accessKey.utf8
        authorization.append(UInt8(ascii: "/"))
        authorization += signingDay(time).scope
        authorization += ", SignedHeaders=".utf8
        authorization += computation.signedHeadersBytes
        authorization += ", Signature=".utf8
        authorization += computation.signatureBytes
        signed["Authorization"] = String(decoding: authorization, as: UTF8.self)
        return (signed, computation)
    }

    /// A presigned URL (query-string authentication): `url` with its key encoded as signed and
    /// `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Expires`,
    /// `X-Amz-SignedHeaders` (`host`), `X-Amz-Security-Token` (with a session token) and
    /// `X-Amz-Signature` after its own query parameters.
    ///
    /// Anyone with the URL can make that one request (`method` on that key) until it expires;
    /// the body is not signed (`UNSIGNED-PAYLOAD`). Query-string authentication parameters
    /// already in `url` are replaced, so an expired URL can be presigned again.
    /// - Parameters:
    ///   - method: the method the URL is for (`GET` to download, `PUT` to upload).
    ///   - date: when the URL starts to be valid, normally now.
    ///   - expiresIn: how long it lasts after `date`, in whole seconds from 1 to 604,800 (7 days,
    ///     S3's limit); a value outside is taken as the nearest of those.
    public func presign(method: String, url: URL, date: Date, expiresIn: TimeInterval) -> URL {
        presigning(method: method, url: url, date: date, expiresIn: expiresIn).url
    }

    /// `presign`'s URL and the strings it computed on the way.
    func presigning(
        method: String, url: URL, date: Date, expiresIn: TimeInterval
    ) -> (url: URL, computation: Computation) {
        let time = AWSTimestamp(date)
        let target = AWSRequestTarget(url)
        let operation = target.parameters.filter { !Self.queryAuthenticationNames.contains($0.name) }.map(\.encoded)
        var credential: [UInt8] = []
        AWSURIEncoding.append(accessKey.utf8, to: &credential)
        AWSURIEncoding.append(CollectionOfOne(UInt8(ascii: "/")), to: &credential)
        AWSURIEncoding.append(signingDay(time).scope, to: &credential)
        let names = Self.queryAuthentication
        var authentication: [(name: [UInt8], value: [UInt8])] = [
            (names.algorithm, Self.algorithmBytes), (names.credential, credential),
            (names.date, Array(time.dateTime.utf8)),
            (names.expires, Array(String(Self.presignedLifetime(expiresIn)).utf8)),
            (names.signedHeaders, names.host),
        ]
        if let sessionToken {
            var token: [UInt8] = []
            AWSURIEncoding.append(sessionToken.utf8, to: &token)
            authentication.append((names.securityToken, token))
        }
        let computation = compute(
            method: method, target: target, query: operation + authentication,
            headers: Self.canonicalHeaders([:], host: target.host), payloadHash: Self.unsignedPayload, time: time)
        // The service's own parameters first, then the authentication ones in AWS's documented
        // order, the signature last: how AWS's example and botocore write them.
        var query: [UInt8] = []
        for (name, value) in operation + authentication + [(names.signature, computation.signatureBytes)] {
            if !query.isEmpty { query.append(UInt8(ascii: "&")) }
            query += name
            query.append(UInt8(ascii: "="))
            query += value
        }
        // The URL parsed, and its parts are re-encoded with unreserved characters only, so
        // Foundation has nothing to refuse; should it, the URL comes back unsigned rather than
        // trapping, and the service's 403 says so.
        return (target.url(query: String(decoding: query, as: UTF8.self)) ?? url, computation)
    }

    /// The query-string authentication parameters' names, and `host`, as bytes made once: made
    /// afresh they were a third of a presign's allocations.
    private static let queryAuthentication = (
        algorithm: Array("X-Amz-Algorithm".utf8), credential: Array("X-Amz-Credential".utf8),
        date: Array("X-Amz-Date".utf8), expires: Array("X-Amz-Expires".utf8),
        signedHeaders: Array("X-Amz-SignedHeaders".utf8), securityToken: Array("X-Amz-Security-Token".utf8),
        signature: Array("X-Amz-Signature".utf8), host: Array("host".utf8)
    )
    private static let algorithmBytes = Array(algorithm.utf8)

    /// The query-string authentication parameters `presign` writes, which it replaces.
    private static let queryAuthenticationNames: Set<[UInt8]> = [
        queryAuthentication.algorithm, queryAuthentication.credential, queryAuthentication.date,
        queryAuthentication.expires, queryAuthentication.signedHeaders, queryAuthentication.securityToken,
        queryAuthentication.signature,
    ]

    /// `seconds` as `X-Amz-Expires` takes it: whole seconds, at least 1, at most 7 days.
    static func presignedLifetime(_ seconds: TimeInterval) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? longestPresignedLifetime : 1 }
        return Int(min(max(seconds.rounded(.down), 1), Double(longestPresignedLifetime)))
    }
}
