import Foundation

/// What a `DownloadCache` stores and for how long: ASI's rules (`storeResponseForRequest:` and
/// `expiryDateForRequest:maxAge:`), with the header parsing RFC 9111 asks for.
enum CacheRules {
    /// The statuses ASI stores; a 304 only refreshes what is stored (`updateExpiry`).
    static let storableStatusCodes: Set<Int> = [200, 301, 302, 303, 307]

    /// The fields of a 304 that replace the stored ones (RFC 9111 §4.3.4 says to update the
    /// stored header fields with those of the 304; these are the ones that carry validators and
    /// freshness).
    static let fieldsUpdatedByNotModified = ["ETag", "Date", "Expires", "Cache-Control", "Last-Modified"]

    /// Whether a response may be stored: a storable status and, when the cache respects the
    /// headers, no `Cache-Control: no-store`/`no-cache` and no `Pragma: no-cache`.
    static func allowsStoring(statusCode: Int, headers: HTTPHeaders, respectingHeaders: Bool) -> Bool {
        guard storableStatusCodes.contains(statusCode) else { return false }
        guard respectingHeaders else { return true }
        let control = CacheControl(headers)
        if control.contains("no-store") || control.contains("no-cache") { return false }
        // Pragma is HTTP/1.0's no-cache; it has no other directive worth knowing.
        let pragma = CacheControl(headers, field: "Pragma")
        return !pragma.contains("no-cache")
    }

    /// When a response received at `now` stops being fresh: `now + maxAge` when the request gave
    /// one (`secondsToCache`; negative means already stale), else from `Cache-Control: max-age`
    /// (s-maxage is for shared caches, which this is not), else from `Expires` (measured from the
    /// response's `Date` when there is one, so a server's clock does not matter), less any `Age`
    /// a proxy reported. Nil when nothing says.
    static func expiry(for headers: HTTPHeaders, maxAge: TimeInterval?, now: Date) -> Date? {
        if let maxAge { return now.addingTimeInterval(maxAge) }
        let age = headers["Age"].flatMap(deltaSeconds) ?? 0
        if let value = CacheControl(headers).value(of: "max-age") {
            // An invalid max-age makes the response stale (RFC 9111 §4.2.1: when in doubt, stale).
            guard let seconds = deltaSeconds(value) else { return now }
            return now.addingTimeInterval(seconds - age)
        }
        if let expires = headers["Expires"] {
            // An Expires that is not a date ("0", "-1") means already expired (RFC 9111 §5.3).
            guard let date = CookieDate.parse(Substring(expires)) else { return now }
            let origin = headers["Date"].flatMap { CookieDate.parse(Substring($0)) } ?? now
            return now.addingTimeInterval(date.timeIntervalSince(origin) - age)
        }
        return nil
    }

    /// delta-seconds (RFC 9111 §1.2.2): digits only; a huge value is capped at 2^31 seconds.
    private static func deltaSeconds(_ text: String) -> TimeInterval? {
        let digits = text.trimmingCharacters(in: .whitespaces)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return min(TimeInterval(digits) ?? 2_147_483_648, 2_147_483_648)
    }
}

/// The directives of a `Cache-Control` (or `Pragma`) header: comma-separated, names compared
/// without case, values optionally quoted. Several fields of one name were already joined with
/// ", " by `HTTPHeaders`.
struct CacheControl {
    private var directives: [(name: String, value: String?)] = []

    init(_ headers: HTTPHeaders, field: String = "Cache-Control") {
        for value in headers.values(for: field) {
            for part in Self.split(value) {
                let trimmed = part.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { continue }
                if let equals = trimmed.firstIndex(of: "=") {
                    let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                    var argument = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                    if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") {
                        argument = String(argument.dropFirst().dropLast())
                    }
                    directives.append((name, argument))
                } else {
                    directives.append((trimmed.lowercased(), nil))
                }
            }
        }
    }

    /// Whether the directive is present (with or without an argument: `no-cache="Set-Cookie"`
    /// counts, which errs towards not storing).
    func contains(_ name: String) -> Bool {
        directives.contains { $0.name == name }
    }

    /// The first argument of the directive; nil when absent. A directive without an argument
    /// gives "" (so `max-age` alone reads as invalid).
    func value(of name: String) -> String? {
        directives.first { $0.name == name }.map { $0.value ?? "" }
    }

    /// Splits at commas outside quoted strings.
    private static func split(_ value: String) -> [Substring] {
        var parts: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if character == "\"" {
                quoted.toggle()
            } else if character == "\\", quoted, value.index(after: index) < value.endIndex {
                index = value.index(after: index)
            } else if character == ",", !quoted {
                parts.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        parts.append(value[start...])
        return parts
    }
}
