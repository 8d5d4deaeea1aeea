import Courier
import Foundation

/// Turns flag values into what the commands need, or a `UsageError` that names the flag and
/// quotes the value.
struct ValueParsing {
    let command: String

    /// A whole number within `range`: `-j 4`, `--retry 3`.
    func integer(_ value: String, for flag: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            let bound =
                range.upperBound == Int.max
                ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
            throw UsageError("\(flag) needs a whole number \(bound) (got \"\(value)\")", command: command)
        }
        return number
    }

    /// Seconds, fractions allowed, more than zero (or zero too, `allowingZero`): `--timeout 2.5`.
    func seconds(_ value: String, for flag: String, allowingZero: Bool = false) throws(UsageError) -> Double {
        guard let seconds = Double(value), seconds.isFinite, seconds > 0 || (allowingZero && seconds == 0) else {
            let bound = allowingZero ? "of at least 0" : "above 0"
            throw UsageError("\(flag) needs a number of seconds \(bound) (got \"\(value)\")", command: command)
        }
        return seconds
    }

    /// Bytes per second: "500", "100k", "1.5M", "1G" in the decimal units courier prints rates
    /// in (k = 1000, so "2M" shows as "2.0 MB/s"), or "512Ki", "2Mi", "1Gi" in binary ones (curl's
    /// "2M" is "2Mi" here).
    func byteRate(_ value: String, for flag: String) throws(UsageError) -> Int64 {
        let multipliers: [Character: Double] = ["k": 1000, "m": 1_000_000, "g": 1_000_000_000]
        var digits = Substring(value)
        var multiplier = 1.0
        var binary = false
        if digits.count > 2, digits.last == "i" || digits.last == "I" {
            binary = true
            digits = digits.dropLast()
        }
        if let last = digits.last?.lowercased().first, let factor = multipliers[last] {
            multiplier = binary ? pow(1024, (log10(factor) / 3).rounded()) : factor
            digits = digits.dropLast()
        } else if binary {
            digits = Substring(value)
        }
        guard let number = Double(digits), number.isFinite, number > 0, number * multiplier < 1e15 else {
            throw UsageError(
                "\(flag) needs bytes per second, like 500, 100k, 1.5M or 2Mi (got \"\(value)\")", command: command)
        }
        return max(1, Int64(number * multiplier))
    }

    /// "Name: value" for a request header. A line break or NUL would let the value start a header
    /// (or a request) of its own, so it is refused here rather than escaped.
    func header(_ value: String, for flag: String) throws(UsageError) -> HeaderLine {
        // curl's "Name;": the header, sent with an empty value.
        if !value.contains(":"), value.hasSuffix(";") {
            let name = String(value.dropLast())
            try checkHeaderName(name, for: flag)
            return HeaderLine(name: name, value: "")
        }
        guard let colon = value.firstIndex(of: ":") else {
            // Not quoted back: a header is often a credential ("Authorization Bearer ...").
            throw UsageError("\(flag) needs \"Name: value\", with a colon", command: command)
        }
        let name = String(value[..<colon])
        let fieldValue = value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        try checkHeaderName(name, for: flag)
        guard !fieldValue.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw UsageError("\(flag): the value of \(name) holds a line break or NUL", command: command)
        }
        // curl's "Name:" with nothing after it: do not send the header at all.
        return HeaderLine(name: name, value: fieldValue, removes: fieldValue.isEmpty)
    }

    private func checkHeaderName(_ name: String, for flag: String) throws(UsageError) {
        let tokenCharacters = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789")
            .union(CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(tokenCharacters.contains) else {
            throw UsageError("\(flag): \"\(name)\" is not a header name", command: command)
        }
    }

    /// An absolute http or https URL with a host: what Courier can fetch. Anything else is
    /// refused before a single request starts, rather than failing one request later. Without a
    /// scheme ("127.0.0.1:8080/x", "example.org/a"), http:// is assumed, as curl and wget do.
    func url(_ text: String) throws(UsageError) -> URL {
        let withScheme = Self.hasScheme(text) ? text : "http://" + text
        guard let url = URL(string: withScheme), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else {
            throw UsageError("not an http or https URL: \"\(CredentialMask.url(text))\"", command: command)
        }
        return url
    }
}

extension ValueParsing {
    /// Whether `text` starts with a scheme ("https://", "mailto:"), rather than a host and a
    /// port ("localhost:8080/x") or a bare host ("example.org/a").
    static func hasScheme(_ text: String) -> Bool {
        if text.contains("://") { return true }
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else {
            return false
        }
        let name = text[..<colon]
        let isSchemeName = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
        // "host:8080": a port follows the colon, not a scheme's rest.
        let rest = text[text.index(after: colon)...]
        return isSchemeName && !(rest.first?.isNumber ?? false)
    }
}

/// A request header from `-H`.
struct HeaderLine: Sendable, Equatable {
    let name: String
    let value: String
    /// `-H 'Name:'`: the header is not sent, not even the one Courier would add (User-Agent,
    /// Accept-Encoding).
    var removes = false
}
