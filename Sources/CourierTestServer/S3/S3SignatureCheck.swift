import Foundation

/// Verifies a request's AWS Signature Version 4, header (`Authorization: AWS4-HMAC-SHA256 …`) or
/// query (a presigned URL's `X-Amz-*` parameters), the way S3 does, and answers each failure with
/// S3's error.
///
/// Written from AWS's "Authenticating Requests: Using the Authorization Header" and "Query String
/// Authentication" pages for S3, independently of Courier's signer, which it checks: the path and
/// query are decoded as received and encoded again (RFC 3986's unreserved characters kept, `/`
/// kept in the path), the query sorted; the signed headers' values trimmed with inner runs of
/// spaces made one.
struct S3SignatureCheck {
    /// What the check needs from the service, read under the server's lock.
    struct Context {
        let credentials: [String: S3Store.Credential]
        /// The bucket's region and wrong-region answer; nil when the request names no existing bucket.
        let bucket: (name: String, region: String, style: S3WrongRegionStyle)?
        /// The service's clock.
        let now: Date
        /// `127.0.0.1:PORT`, for `<Endpoint>`.
        let endpoint: String
    }

    /// The largest difference S3 allows between a request's time and its own: 15 minutes.
    static let allowedSkew: TimeInterval = 900

    static let algorithm = "AWS4-HMAC-SHA256"
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The parts of either kind of authentication.
    private struct Claim {
        let isPresigned: Bool
        let accessKey: String
        let scopeDay: String
        let region: String
        let service: String
        let terminator: String
        let signedHeaders: [String]
        let signature: String
        let amzDate: String
        let expires: String?
        let sessionToken: String?
    }

    /// Checks `call`'s signature, its time, its region and its payload hash against `body`.
    /// - Throws: the S3 error that answers the first thing wrong.
    static func verify(
        _ call: S3Call, headers: [HeaderField], body: Data, context: Context
    ) throws(S3ErrorDocument) {
        let claim = try readClaim(call, headers: headers)
        guard let credential = context.credentials[claim.accessKey] else {
            throw S3ErrorDocument(
                status: 403, code: "InvalidAccessKeyId",
                message: "The AWS Access Key Id you provided does not exist in our records.",
                details: [("AWSAccessKeyId", claim.accessKey)])
        }
        if claim.sessionToken != credential.sessionToken {
            throw S3ErrorDocument(
                status: 403, code: "InvalidToken", message: "The provided token is malformed or otherwise invalid.",
                details: [("Token-0", claim.sessionToken ?? "")])
        }
        guard let time = S3Time.parseAMZDate(claim.amzDate) else {
            if claim.isPresigned {
                throw queryError("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\"")
            }
            throw S3ErrorDocument.accessDenied("AWS authentication requires a valid Date or x-amz-date header")
        }
        guard claim.service == "s3", claim.terminator == "aws4_request", claim.scopeDay.utf8.count == 8 else {
            throw malformed(claim, "the credential scope must be DAY/REGION/s3/aws4_request")
        }
        guard claim.amzDate.hasPrefix(claim.scopeDay) else {
            throw malformed(claim, "Invalid credential date. Date is not the same as X-Amz-Date.", plain: true)
        }
        if let bucket = context.bucket, bucket.region != claim.region {
            throw wrongRegion(claim, bucket: bucket, endpoint: context.endpoint)
        }
        try checkTime(claim, time: time, now: context.now)
        try checkEverySignedHeader(claim, headers: headers)
        let payloadHash = claim.isPresigned ? unsignedPayload : try readPayloadHash(headers)
        let canonical = canonicalRequest(call, headers: headers, claim: claim, payloadHash: payloadHash)
        let stringToSign = [
            algorithm, claim.amzDate,
            [claim.scopeDay, claim.region, claim.service, claim.terminator].joined(separator: "/"),
            S3Digest.sha256Hex(canonical),
        ].joined(separator: "\n")
        let expected = signature(
            of: stringToSign, secret: credential.secretAccessKey, day: claim.scopeDay, region: claim.region)
        guard expected == claim.signature else {
            throw S3ErrorDocument(
                status: 403, code: "SignatureDoesNotMatch",
                message: "The request signature we calculated does not match the signature you provided. "
                    + "Check your key and signing method.",
                details: [
                    ("AWSAccessKeyId", claim.accessKey), ("StringToSign", stringToSign),
                    ("SignatureProvided", claim.signature), ("CanonicalRequest", canonical),
                ])
        }
        if payloadHash != unsignedPayload {
            let computed = S3Digest.sha256Hex(body)
            guard computed == payloadHash else {
                throw S3ErrorDocument(
                    status: 400, code: "XAmzContentSHA256Mismatch",
                    message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
                    details: [("ClientComputedContentSHA256", payloadHash), ("S3ComputedContentSHA256", computed)])
            }
        }
    }

    // MARK: Reading the claim

    private static func readClaim(_ call: S3Call, headers: [HeaderField]) throws(S3ErrorDocument) -> Claim {
        let authorization = headers.first { $0.name.equalsIgnoringASCIICase("Authorization") }?.value
        let presigned = call.parameter("X-Amz-Algorithm") != nil || call.parameter("X-Amz-Signature") != nil
        if authorization != nil, presigned {
            throw S3ErrorDocument.invalidArgument(
                "Only one auth mechanism allowed; only the X-Amz-Algorithm query "
                    + "parameter, Signature query string parameter or the Authorization header should be specified")
        }
        if presigned { return try readQueryClaim(call) }
        guard let authorization else { throw S3ErrorDocument.accessDenied() }
        guard authorization.hasPrefix(algorithm + " ") else {
            throw S3ErrorDocument(
                status: 400, code: "InvalidRequest",
                message: "The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.")
        }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst(algorithm.count + 1).split(separator: ",") {
            let pair = part.trimmingHTTPWhitespace().split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let credential = fields["Credential"], let signedHeaders = fields["SignedHeaders"],
            let signature = fields["Signature"]
        else {
            throw S3ErrorDocument(
                status: 400, code: "AuthorizationHeaderMalformed",
                message: "The authorization header is malformed; it must have Credential, SignedHeaders and Signature.")
        }
        let amzDate = headers.first { $0.name.equalsIgnoringASCIICase("x-amz-date") }?.value ?? ""
        let token = headers.first { $0.name.equalsIgnoringASCIICase("x-amz-security-token") }?.value
        return try claim(
            isPresigned: false, credential: credential, signedHeaders: signedHeaders, signature: signature,
            amzDate: amzDate, expires: nil, sessionToken: token)
    }

    private static func readQueryClaim(_ call: S3Call) throws(S3ErrorDocument) -> Claim {
        guard call.parameter("X-Amz-Algorithm") == algorithm else {
            throw queryError("X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"")
        }
        guard let credential = call.parameter("X-Amz-Credential"),
            let signedHeaders = call.parameter("X-Amz-SignedHeaders"),
            let signature = call.parameter("X-Amz-Signature"), let amzDate = call.parameter("X-Amz-Date"),
            let expires = call.parameter("X-Amz-Expires")
        else {
            throw queryError(
                "Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, "
                    + "X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.")
        }
        return try claim(
            isPresigned: true, credential: credential, signedHeaders: signedHeaders, signature: signature,
            amzDate: amzDate, expires: expires, sessionToken: call.parameter("X-Amz-Security-Token"))
    }

    private static func claim(
        isPresigned: Bool, credential: String, signedHeaders: String, signature: String, amzDate: String,
        expires: String?, sessionToken: String?
    ) throws(S3ErrorDocument) -> Claim {
        let scope = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard scope.count == 5 else {
            let message =
                "the Credential is mal-formed; expecting \"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\"."
            if isPresigned { throw queryError("Error parsing the X-Amz-Credential parameter; " + message) }
            throw S3ErrorDocument(
                status: 400, code: "AuthorizationHeaderMalformed",
                message: "The authorization header is malformed; " + message)
        }
        return Claim(
            isPresigned: isPresigned, accessKey: scope[0], scopeDay: scope[1], region: scope[2], service: scope[3],
            terminator: scope[4], signedHeaders: signedHeaders.split(separator: ";").map { $0.lowercased() },
            signature: signature, amzDate: amzDate, expires: expires, sessionToken: sessionToken)
    }

    // MARK: Checks before the signature

    private static func checkTime(_ claim: Claim, time: Date, now: Date) throws(S3ErrorDocument) {
        guard let expires = claim.expires else {
            guard abs(time.timeIntervalSince(now)) <= allowedSkew else {
                throw S3ErrorDocument(
                    status: 403, code: "RequestTimeTooSkewed",
                    message: "The difference between the request time and the current time is too large.",
                    details: [
                        ("RequestTime", claim.amzDate), ("ServerTime", S3Time.errorDate(now)),
                        ("MaxAllowedSkewMilliseconds", String(Int(allowedSkew * 1000))),
                    ])
            }
            return
        }
        guard let lifetime = RouteTarget.number(expires), lifetime >= 1 else {
            throw queryError("X-Amz-Expires should be a number")
        }
        guard lifetime <= 604_800 else {
            throw queryError("X-Amz-Expires must be less than a week (in seconds) that is; 604800 seconds")
        }
        if time.timeIntervalSince(now) > allowedSkew {
            throw S3ErrorDocument.accessDenied("Request is not valid yet")
        }
        let end = time.addingTimeInterval(TimeInterval(lifetime))
        guard now <= end else {
            throw S3ErrorDocument.accessDenied(
                "Request has expired",
                details: [
                    ("X-Amz-Expires", expires), ("Expires", S3Time.errorDate(end)),
                    ("ServerTime", S3Time.errorDate(now)),
                ])
        }
    }

    /// S3 refuses a request with an `x-amz-*` header (or `host`) it cannot see in the signature.
    private static func checkEverySignedHeader(_ claim: Claim, headers: [HeaderField]) throws(S3ErrorDocument) {
        let signed = Set(claim.signedHeaders)
        let unsigned = Set(
            headers.map { $0.name.lowercased() }.filter {
                ($0.hasPrefix("x-amz-") || $0 == "host") && !signed.contains($0)
            })
        guard unsigned.isEmpty else {
            throw S3ErrorDocument.accessDenied(
                "There were headers present in the request which were not signed",
                details: [("HeadersNotSigned", unsigned.sorted().joined(separator: ", "))])
        }
    }

    /// The header auth's payload hash, `x-amz-content-sha256`, which S3 requires.
    private static func readPayloadHash(_ headers: [HeaderField]) throws(S3ErrorDocument) -> String {
        guard let value = headers.first(where: { $0.name.equalsIgnoringASCIICase("x-amz-content-sha256") })?.value
        else {
            throw S3ErrorDocument(
                status: 400, code: "InvalidRequest",
                message: "Missing required header for this request: x-amz-content-sha256")
        }
        let isHex =
            value.utf8.count == 64 && value.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        guard isHex || value == unsignedPayload else {
            throw S3ErrorDocument.invalidArgument(
                "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, or a valid sha256 value.")
        }
        return value
    }

    private static func wrongRegion(
        _ claim: Claim, bucket: (name: String, region: String, style: S3WrongRegionStyle), endpoint: String
    ) -> S3ErrorDocument {
        let header = HeaderField(name: "x-amz-bucket-region", value: bucket.region)
        switch bucket.style {
        case .permanentRedirect:
            return S3ErrorDocument(
                status: 301, code: "PermanentRedirect",
                message: "The bucket you are attempting to access must be addressed using the specified endpoint. "
                    + "Please send all future requests to this endpoint.",
                details: [("Endpoint", endpoint), ("Bucket", bucket.name)], headers: [header])
        case .authorizationHeaderMalformed:
            let reason = "the region '\(claim.region)' is wrong; expecting '\(bucket.region)'"
            var error =
                claim.isPresigned
                ? queryError("Error parsing the X-Amz-Credential parameter; " + reason)
                : S3ErrorDocument(
                    status: 400, code: "AuthorizationHeaderMalformed",
                    message: "The authorization header is malformed; " + reason)
            error.details.append(("Region", bucket.region))
            error.headers.append(header)
            return error
        }
    }

    private static func queryError(_ message: String) -> S3ErrorDocument {
        S3ErrorDocument(status: 400, code: "AuthorizationQueryParametersError", message: message)
    }

    private static func malformed(_ claim: Claim, _ reason: String, plain: Bool = false) -> S3ErrorDocument {
        if claim.isPresigned { return queryError("Error parsing the X-Amz-Credential parameter; " + reason) }
        return S3ErrorDocument(
            status: 400, code: "AuthorizationHeaderMalformed",
            message: plain ? reason : "The authorization header is malformed; " + reason)
    }

    // MARK: The signature

    /// The canonical request: method, path, query, signed headers and their names, payload hash.
    private static func canonicalRequest(
        _ call: S3Call, headers: [HeaderField], claim: Claim, payloadHash: String
    ) -> String {
        let path = call.path.split(separator: "/", omittingEmptySubsequences: false)
            .map { PercentCoding.encode(String($0)) }.joined(separator: "/")
        let query = call.query.filter { !(claim.isPresigned && $0.name == "X-Amz-Signature") }
            .map { (name: PercentCoding.encode($0.name), value: PercentCoding.encode($0.value)) }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
            .map { $0.name + "=" + $0.value }.joined(separator: "&")
        let names = claim.signedHeaders.sorted()
        let lines = names.map { name in
            let values = headers.filter { $0.name.lowercased() == name }.map { trimAll($0.value) }
            return name + ":" + values.joined(separator: ",") + "\n"
        }
        return [
            call.method, path.isEmpty ? "/" : path, query, lines.joined(), names.joined(separator: ";"), payloadHash,
        ]
        .joined(separator: "\n")
    }

    /// `value` trimmed, inner runs of spaces and tabs made one space.
    private static func trimAll(_ value: String) -> String {
        value.split { $0 == " " || $0 == "\t" }.joined(separator: " ")
    }

    /// The hex HMAC of `stringToSign` under the key derived from `secret` for the day and region.
    private static func signature(of stringToSign: String, secret: String, day: String, region: String) -> String {
        var key = Array(("AWS4" + secret).utf8)
        for part in [day, region, "s3", "aws4_request"] { key = S3Digest.hmacSHA256(key: key, part) }
        return S3Digest.hex(S3Digest.hmacSHA256(key: key, stringToSign))
    }
}
