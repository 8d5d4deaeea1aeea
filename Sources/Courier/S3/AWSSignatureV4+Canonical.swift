/// The canonical request, the string to sign and the signing key: SigV4's steps, each kept so the
/// tests can hold them against AWS's worked examples.
extension AWSSignatureV4 {
    /// One signing's intermediate strings and its result.
    struct Computation {
        /// Method, path, query, headers, signed header names and payload hash, one a line.
        let canonicalRequest: String
        /// The algorithm, the time, the scope and the canonical request's hex SHA-256.
        let stringToSign: String
        /// The signed headers' names, lower-case, sorted, joined with `;`.
        let signedHeaders: String
        /// The hex HMAC-SHA256 of the string to sign under the signing key.
        let signature: String
    }

    /// Signs the canonical parts of a request: `path` and `query` already canonical, `headers`
    /// canonical and sorted (`canonicalHeaders`).
    func compute(
        method: String, path: String, query: String, headers: [(name: String, value: String)], payloadHash: String,
        time: AWSTimestamp
    ) -> Computation {
        let signedHeaders = headers.map(\.name).joined(separator: ";")
        let headerLines = headers.map { $0.name + ":" + $0.value + "\n" }.joined()
        let canonicalRequest = [method, path, query, headerLines, signedHeaders, payloadHash].joined(separator: "\n")
        let stringToSign = [
            Self.algorithm, time.dateTime, scope(time), Digests.hex(Digests.sha256(canonicalRequest)),
        ].joined(separator: "\n")
        let signature = Digests.hex(Digests.hmacSHA256(key: signingKey(time), stringToSign))
        return Computation(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signedHeaders: signedHeaders,
            signature: signature)
    }

    /// The credential scope: `<day>/<region>/<service>/aws4_request`.
    func scope(_ time: AWSTimestamp) -> String {
        time.day + "/" + region + "/" + service + "/aws4_request"
    }

    /// The key for one day, region and service: "AWS4" + the secret, HMAC'd with each in turn.
    func signingKey(_ time: AWSTimestamp) -> [UInt8] {
        if let cached = signingKeys.current, cached.day == time.day { return cached.key }
        let key = deriveSigningKey(time)
        signingKeys.withLock { $0 = (time.day, key) }
        return key
    }

    /// `signingKey` computed afresh.
    func deriveSigningKey(_ time: AWSTimestamp) -> [UInt8] {
        let dateKey = Digests.hmacSHA256(key: Array(("AWS4" + secretAccessKey).utf8), time.day)
        let regionKey = Digests.hmacSHA256(key: dateKey, region)
        let serviceKey = Digests.hmacSHA256(key: regionKey, service)
        return Digests.hmacSHA256(key: serviceKey, "aws4_request")
    }

    /// `headers` and `host` as SigV4 signs them: names lower-cased, values trimmed with inner runs
    /// of spaces and tabs made one space, sorted by name. A `Host` in `headers` wins over `host`
    /// (libcurl sends the given one); fields whose names differ only in case are joined with `,`.
    static func canonicalHeaders(_ headers: HTTPHeaders, host: String) -> [(name: String, value: String)] {
        var values: [String: String] = [:]
        for (name, value) in headers {
            let name = name.lowercased()
            let value = canonicalHeaderValue(value)
            values[name] = values[name].map { $0 + "," + value } ?? value
        }
        if values["host"] == nil { values["host"] = host }
        return values.map { (name: $0.key, value: $0.value) }.sorted {
            $0.name.utf8.lexicographicallyPrecedes($1.name.utf8)
        }
    }

    /// `value` trimmed, its inner runs of spaces and tabs each made one space (SigV4's `Trimall`).
    static func canonicalHeaderValue(_ value: String) -> String {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard value.utf8.contains(where: isBlank) else { return value }
        return value.utf8.split(whereSeparator: isBlank).map { String(decoding: $0, as: UTF8.self) }
            .joined(separator: " ")
    }
}
