import Foundation

/// How an S3 request addresses and signs each attempt (`signAttempt`, before the attempt, off
/// the engine thread), and what it makes of each response (`reviewResponse`, with
/// `S3RetryPolicy`'s rules).
extension S3Request {
    /// What one attempt sends: its URL, its headers (the user's, the class's and the signature's)
    /// and a body the class made, if any.
    struct SignedAttempt {
        var url: URL
        var headers: HTTPHeaders
        var body: Data?
        var readsSuccessfulResponse = false
    }

    /// Signs the attempt about to begin and sets its URL and headers.
    func signForAttempt() throws(HTTPRequestError) {
        let signed = try signedAttempt(now: Date())
        state.withLock { state in
            state.config.url = signed.url
            state.attemptHeaders = signed.headers
            state.config.reviewsSuccessfulResponses = signed.readsSuccessfulResponse
            if let body = signed.body { state.config.postBody = body }
        }
    }

    /// The attempt as it would go now.
    func signedAttempt(now: Date) throws(HTTPRequestError) -> SignedAttempt {
        let (settings, run) = s3.withLock { ($0.settings, $0.run) }
        let operation = operation()
        let region = run.regionOverride ?? settings.region
        var addressing = addressing(settings)
        addressing.region = region
        let addressed = try addressing.url(
            bucket: operation.bucket, key: operation.key, query: operation.query, cached: run.addressed)
        let url = addressed.url
        if addressed.url != run.addressed?.url { s3.withLock { $0.run.addressed = addressed } }
        // Read in place: a copy of the whole configuration cost more than the fields.
        let (method, userHeaders, payload, compresses) = state.withLock { state in
            let hasBody = operation.body != nil || HTTPRequest.hasBody(state.config)
            let method = !state.config.methodWasSet && hasBody ? "POST" : state.config.requestMethod
            let payload: S3PayloadDigest.Payload =
                method == "HEAD" ? .none : operation.body.map { .data($0) } ?? .init(state.config)
            return (method, state.config.requestHeaders, payload, state.config.shouldCompressRequestBody)
        }
        var headers = userHeaders
        for field in operation.headers { headers[field.name] = field.value }
        if operation.takesAccessPolicy, let policy = settings.accessPolicy { headers["x-amz-acl"] = policy.rawValue }

        let credentials = S3Credentials(settings)
        // The body is hashed only where the signature covers it; a gzipped body's bytes on the
        // wire are not the ones here, so it goes unsigned.
        let hashesBody =
            credentials != nil && settings.signatureVersion == .v4 && settings.payloadSigning == .signed
            && !compresses && payload.canBeRead
        if let checksum = operation.checksum, !payload.canBeRead {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "A \(checksum.rawValue) checksum needs a body that can be read before it is sent, "
                    + "not a stream", url: url)
        }
        var payloadHash = AWSSignatureV4.unsignedPayload
        if hashesBody, operation.checksum == nil, case .none = payload {
            // No body: the constant, not a SHA-256 of nothing (~11,000 instructions a GET).
            payloadHash = AWSSignatureV4.emptyPayloadHash
        } else if hashesBody || operation.checksum != nil {
            let digest = try S3PayloadDigest.compute(
                payload, sha256: hashesBody, checksum: operation.checksum, cached: run.fileDigest, url: url)
            if let file = digest.file { s3.withLock { $0.run.fileDigest = file } }
            if let hash = digest.sha256 { payloadHash = hash }
            if let checksum = operation.checksum, let value = digest.checksum { headers[checksum.headerName] = value }
        }
        let reads = operation.readsSuccessfulResponse || operation.answersErrorIn200
        guard let credentials else {
            return SignedAttempt(url: url, headers: headers, body: operation.body, readsSuccessfulResponse: reads)
        }

        let date = run.clockOffset.map { now.addingTimeInterval($0) } ?? settings.date ?? now
        switch settings.signatureVersion {
        case .v4:
            headers = S3Signers.shared.signer(credentials, region: region).sign(
                method: method, url: url, headers: headers, payloadHash: payloadHash, date: date)
        case .v2:
            headers.remove(name: "Authorization")
            headers["Date"] = AWSTimestamp(date).httpDate
            if let token = credentials.sessionToken { headers["x-amz-security-token"] = token }
            let resource = AWSSignatureV2.canonicalizedResource(
                bucket: usesVirtualHost(settings, operation) ? operation.bucket : nil, url: url)
            headers["Authorization"] = AWSSignatureV2(
                accessKey: credentials.accessKey, secretAccessKey: credentials.secretAccessKey
            ).authorization(method: method, resource: resource, headers: headers)
        }
        return SignedAttempt(url: url, headers: headers, body: operation.body, readsSuccessfulResponse: reads)
    }

    func addressing(_ settings: S3Settings) -> S3Addressing {
        S3Addressing(
            endpoint: settings.endpoint, region: settings.region, scheme: settings.requestScheme,
            style: settings.addressingStyle)
    }

    func usesVirtualHost(_ settings: S3Settings, _ operation: S3Operation) -> Bool {
        guard let bucket = operation.bucket else { return false }
        return addressing(settings).usesVirtualHost(for: bucket, scheme: settings.endpoint?.scheme ?? settings.requestScheme)
    }

    // MARK: - Reviewing a response

    /// What the response leads to, by `S3RetryPolicy`.
    func reviewS3Response() -> ResponseReview {
        let (status, statusLine, headers, isDownload) = state.withLock {
            ($0.response.statusCode, $0.response.statusLine, $0.response.headers, $0.config.downloadDestinationPath != nil)
        }
        // A download's body is in its file, and only an error's is in memory.
        let body = status >= 300 || !isDownload ? responseData() : nil
        let operation = operation()
        var error: S3Error?
        if status >= 300 || (operation.answersErrorIn200 && body.map(S3Error.isErrorDocument) == true) {
            error = S3Error.from(
                statusCode: status, reason: Self.reason(in: statusLine), headers: headers, body: body ?? Data())
        }
        let now = Date()
        let (verdict, region) = s3.withLock { s3 in
            let region = s3.run.regionOverride ?? s3.settings.region
            let verdict = s3.run.policy.verdict(
                statusCode: status, error: error, region: region, now: now,
                serverDate: headers["Date"].flatMap(S3Date.parse), backoff: Self.serverErrorBackoff)
            switch verdict {
            case .retryInRegion(let other): s3.run.regionOverride = other
            case .retryWithClockOffset(let offset): s3.run.clockOffset = offset
            case .fail: s3.run.error = error
            case .accept, .retryAfter: break
            }
            return (verdict, region)
        }
        let url = self.url
        switch verdict {
        case .accept:
            do throws(HTTPRequestError) {
                try responseAccepted(body: body, headers: headers)
            } catch {
                return .fail(error)
            }
            return .accept
        case .fail:
            let error = error ?? S3Error(code: "HTTP\(status)", message: Self.reason(in: statusLine), statusCode: status)
            return .fail(
                HTTPRequestError(
                    type: .serviceError, message: "S3 answered \(error)", url: url, underlyingError: error))
        case .retryInRegion(let other):
            Log.message("\(Log.masked(url)): the bucket is in \(other), not \(region); signing for \(other) and trying again")
            return .retry(after: 0)
        case .retryWithClockOffset(let offset):
            Log.message("\(Log.masked(url)): the service's clock is \(Int(offset)) s from ours; trying again on its clock")
            return .retry(after: 0)
        case .retryAfter(let pause):
            Log.message("\(Log.masked(url)): \(error?.code ?? "\(status)"); trying again in \(pause) s")
            return .retry(after: pause)
        }
    }

    /// "Not Found" from "HTTP/1.1 404 Not Found".
    static func reason(in statusLine: String?) -> String {
        guard let statusLine else { return "" }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        return parts.count == 3 ? String(parts[2]).trimmingCharacters(in: .whitespacesAndNewlines) : ""
    }
}

/// Signers by credentials and region, so each keeps its day's signing key between requests
/// (deriving it is four HMACs, most of a signature's cost). At most `limit` are kept.
final class S3Signers: Sendable {
    static let shared = S3Signers()
    private static let limit = 32

    private struct Key: Hashable {
        let accessKey: String
        let secretAccessKey: String
        let sessionToken: String?
        let region: String
    }

    private let signers = Locked<[Key: AWSSignatureV4]>([:])

    func signer(_ credentials: S3Credentials, region: String) -> AWSSignatureV4 {
        let key = Key(
            accessKey: credentials.accessKey, secretAccessKey: credentials.secretAccessKey,
            sessionToken: credentials.sessionToken, region: region)
        return signers.withLock { signers in
            if let signer = signers[key] { return signer }
            if signers.count >= Self.limit { signers.removeAll() }
            let signer = credentials.v4(region: region)
            signers[key] = signer
            return signer
        }
    }
}
