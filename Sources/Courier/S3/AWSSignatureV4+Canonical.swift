import Glibc

/// The canonical request, the string to sign and the signing key: SigV4's steps, each kept so the
/// tests can hold them against AWS's worked examples.
///
/// Each is written as bytes into one buffer and hashed from there. Built as joined `String`s, with
/// a `Dictionary` of the headers and their lower-cased names, they cost more than the hashing: the
/// canonical headers alone took ~23,200 instructions a sign (callgrind), ~10,200 now.
extension AWSSignatureV4 {
    /// One signing's intermediate strings and its result, as bytes.
    struct Computation {
        /// Method, path, query, headers, signed header names and payload hash, one a line.
        let canonicalRequestBytes: [UInt8]
        /// The algorithm, the time, the scope and the canonical request's hex SHA-256.
        let stringToSignBytes: [UInt8]
        /// The signed headers' names, lower-case, sorted, joined with `;`.
        let signedHeadersBytes: [UInt8]
        /// The hex HMAC-SHA256 of the string to sign under the signing key.
        let signatureBytes: [UInt8]

        var canonicalRequest: String { String(decoding: canonicalRequestBytes, as: UTF8.self) }
        var stringToSign: String { String(decoding: stringToSignBytes, as: UTF8.self) }
        var signedHeaders: String { String(decoding: signedHeadersBytes, as: UTF8.self) }
        var signature: String { String(decoding: signatureBytes, as: UTF8.self) }
    }

    /// One day's signing key, ready to sign with, and the credential scope that names it.
    final class SigningDay: Sendable {
        /// `yyyyMMdd`.
        let day: String
        /// `<day>/<region>/<service>/aws4_request`.
        let scope: [UInt8]
        /// The key's bytes (`deriveSigningKey`).
        let keyBytes: [UInt8]
        let key: HMACSHA256Key

        init(day: String, scope: [UInt8], keyBytes: [UInt8]) {
            self.day = day
            self.scope = scope
            self.keyBytes = keyBytes
            key = HMACSHA256Key(keyBytes)
        }
    }

    /// Signs the canonical parts of a request: `target`'s path, `query` (pairs already encoded,
    /// in any order), `headers` canonical and sorted (`canonicalHeaders`).
    func compute(
        method: String, target: AWSRequestTarget, query: [(name: [UInt8], value: [UInt8])],
        headers: CanonicalHeaders, payloadHash: String, time: AWSTimestamp
    ) -> Computation {
        var canonicalRequest: [UInt8] = []
        canonicalRequest.reserveCapacity(
            method.utf8.count + target.canonicalPath.count + headers.lines.count + 2 * headers.names.count
                + payloadHash.utf8.count + 64 * query.count + 8)
        canonicalRequest += method.utf8
        canonicalRequest.append(UInt8(ascii: "\n"))
        canonicalRequest += target.canonicalPath
        canonicalRequest.append(UInt8(ascii: "\n"))
        AWSURIEncoding.appendCanonicalQuery(query, to: &canonicalRequest)
        canonicalRequest.append(UInt8(ascii: "\n"))
        canonicalRequest += headers.lines
        canonicalRequest.append(UInt8(ascii: "\n"))
        canonicalRequest += headers.names
        canonicalRequest.append(UInt8(ascii: "\n"))
        canonicalRequest += payloadHash.utf8

        let signingDay = signingDay(time)
        var stringToSign: [UInt8] = []
        stringToSign.reserveCapacity(Self.algorithm.utf8.count + 16 + signingDay.scope.count + 64 + 3)
        stringToSign += Self.algorithm.utf8
        stringToSign.append(UInt8(ascii: "\n"))
        stringToSign += time.dateTime.utf8
        stringToSign.append(UInt8(ascii: "\n"))
        stringToSign += signingDay.scope
        stringToSign.append(UInt8(ascii: "\n"))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Digests.sha256Length) { digest in
            canonicalRequest.withUnsafeBytes { Digests.emptySHA256.finish(appending: $0, into: digest) }
            Digests.appendHex(UnsafeBufferPointer(digest), to: &stringToSign)
        }
        var signature: [UInt8] = []
        signature.reserveCapacity(2 * Digests.sha256Length)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Digests.sha256Length) { mac in
            stringToSign.withUnsafeBytes { signingDay.key.authenticationCode(of: $0, into: mac) }
            Digests.appendHex(UnsafeBufferPointer(mac), to: &signature)
        }
        return Computation(
            canonicalRequestBytes: canonicalRequest, stringToSignBytes: stringToSign,
            signedHeadersBytes: headers.names, signatureBytes: signature)
    }

    /// The credential scope: `<day>/<region>/<service>/aws4_request`.
    func scope(_ time: AWSTimestamp) -> String {
        String(decoding: signingDay(time).scope, as: UTF8.self)
    }

    /// The key for one day, region and service: "AWS4" + the secret, HMAC'd with each in turn.
    func signingKey(_ time: AWSTimestamp) -> [UInt8] {
        signingDay(time).keyBytes
    }

    /// The signing key and scope for `time`'s day, derived once a day and kept.
    func signingDay(_ time: AWSTimestamp) -> SigningDay {
        if let cached = signingKeys.current, cached.day == time.day { return cached }
        var scope = Array(time.day.utf8)
        for part in [region, service, "aws4_request"] {
            scope.append(UInt8(ascii: "/"))
            scope += part.utf8
        }
        let signingDay = SigningDay(day: time.day, scope: scope, keyBytes: deriveSigningKey(time))
        signingKeys.withLock { $0 = signingDay }
        return signingDay
    }

    /// `signingKey` computed afresh.
    func deriveSigningKey(_ time: AWSTimestamp) -> [UInt8] {
        let dateKey = HMACSHA256Key(Array(("AWS4" + secretAccessKey).utf8)).authenticationCode(of: time.day)
        let regionKey = HMACSHA256Key(dateKey).authenticationCode(of: region)
        let serviceKey = HMACSHA256Key(regionKey).authenticationCode(of: service)
        return HMACSHA256Key(serviceKey).authenticationCode(of: "aws4_request")
    }

    /// The canonical headers' lines and the signed headers' names, as SigV4 writes them.
    struct CanonicalHeaders {
        /// `name:value\n` for each header, sorted by name.
        var lines: [UInt8] = []
        /// The names, sorted, joined with `;`.
        var names: [UInt8] = []
    }

    /// `headers` and `host` as SigV4 signs them: names lower-cased, values trimmed with inner runs
    /// of spaces and tabs made one space, sorted by name. A `Host` in `headers` wins over `host`
    /// (libcurl sends the given one); fields whose names differ only in case are joined with `,`,
    /// in the order they come.
    static func canonicalHeaders(_ headers: HTTPHeaders, host: String) -> CanonicalHeaders {
        // Every name lower-cased into one buffer, each field its range there: no array per name.
        var names: [UInt8] = []
        names.reserveCapacity(24 * (headers.count + 1))
        // Each field's value is found again by its index in `headers` (`headers.count` for
        // `host`), so no value is copied (a retain and a release each).
        var fields: [(name: Range<Int>, value: Int)] = []
        fields.reserveCapacity(headers.count + 1)
        var hasHost = false
        for (index, field) in headers.fields.enumerated() {
            let start = names.count
            appendLowercased(field.name, to: &names)
            fields.append((start..<names.count, index))
            hasHost = hasHost || names.count - start == 4 && names[start...].elementsEqual("host".utf8)
        }
        if !hasHost {
            let start = names.count
            names += "host".utf8
            fields.append((start..<names.count, headers.count))
        }
        let named = fields
        return names.withUnsafeBufferPointer {
            Self.canonicalLines(names: $0, fields: named, values: headers.fields, host: host)
        }
    }

    /// The canonical headers of `fields`, whose names are ranges of `names` and whose values are
    /// `values[value].value` (`host` past its end). A function of its own, not a closure, so
    /// nothing it touches is captured: through a closure's captures every field read was an
    /// exclusivity check and a retain.
    private static func canonicalLines(
        names: UnsafeBufferPointer<UInt8>, fields: [(name: Range<Int>, value: Int)], values: [HTTPHeaders.Field],
        host: String
    ) -> CanonicalHeaders {
        var canonical = CanonicalHeaders()
        canonical.lines.reserveCapacity(names.count + 64 * fields.count)
        canonical.names.reserveCapacity(names.count + fields.count)
        // Sorted by name, and by arrival within a name: an insertion sort that moves a field
        // only past greater names. A handful of fields; `sorted(by:)` with a closure took
        // ~4,900 instructions a sign for six (callgrind), this ~1,500.
        var order = Array(fields.indices)
        for unsorted in order.indices.dropFirst() {
            let moving = order[unsorted]
            let movingName = UnsafeBufferPointer(rebasing: names[fields[moving].name])
            var slot = unsorted
            while slot > 0, compare(UnsafeBufferPointer(rebasing: names[fields[order[slot - 1]].name]), movingName) > 0
            {
                order[slot] = order[slot - 1]
                slot -= 1
            }
            order[slot] = moving
        }
        var previous: UnsafeBufferPointer<UInt8>?
        for index in order {
            let name = UnsafeBufferPointer(rebasing: names[fields[index].name])
            if let previous, compare(previous, name) == 0 {
                canonical.lines.removeLast()  // the previous value's "\n"
                canonical.lines.append(UInt8(ascii: ","))
            } else {
                if previous != nil { canonical.names.append(UInt8(ascii: ";")) }
                canonical.names.append(contentsOf: name)
                canonical.lines.append(contentsOf: name)
                canonical.lines.append(UInt8(ascii: ":"))
            }
            previous = name
            let value = fields[index].value
            appendCanonicalValue(value < values.count ? values[value].value : host, to: &canonical.lines)
            canonical.lines.append(UInt8(ascii: "\n"))
        }
        return canonical
    }

    /// Byte order: negative when `left` sorts first, 0 when they are equal.
    private static func compare(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(left.count, right.count)
        if common > 0, let leftStart = left.baseAddress, let rightStart = right.baseAddress {
            let order = memcmp(leftStart, rightStart, common)
            if order != 0 { return Int(order) }
        }
        return left.count - right.count
    }

    /// `name` lower-cased as `String.lowercased()` does it (ASCII, as header names are, without
    /// it), onto the end of `text`.
    private static func appendLowercased(_ name: String, to text: inout [UInt8]) {
        // The string's own storage where it has some, not a copy of the string.
        let appended: Void? = name.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.allSatisfy({ $0 < 0x80 }) else {
                text += name.lowercased().utf8
                return
            }
            for byte in bytes { text.append(ASCIICase.folded(byte)) }
        }
        if appended == nil { text += name.lowercased().utf8 }
    }

    /// `value` trimmed, its inner runs of spaces and tabs each made one space (SigV4's `Trimall`),
    /// onto the end of `text`.
    static func appendCanonicalValue(_ value: String, to text: inout [UInt8]) {
        // The string's own storage, not a copy of the string (a retain and a release each).
        let appended: Void? = value.utf8.withContiguousStorageIfAvailable { appendCanonicalValue($0, to: &text) }
        if appended == nil {
            Array(value.utf8).withUnsafeBufferPointer { appendCanonicalValue($0, to: &text) }
        }
    }

    private static func appendCanonicalValue(_ bytes: UnsafeBufferPointer<UInt8>, to text: inout [UInt8]) {
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        // Most values have no blank at all: copied whole.
        guard bytes.contains(where: isBlank) else {
            text.append(contentsOf: bytes)
            return
        }
        var pendingSpace = false
        var started = false
        for byte in bytes {
            if isBlank(byte) {
                pendingSpace = started
            } else {
                if pendingSpace { text.append(UInt8(ascii: " ")) }
                pendingSpace = false
                started = true
                text.append(byte)
            }
        }
    }
}
