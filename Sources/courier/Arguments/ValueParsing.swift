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

    /// Seconds, fractions allowed, more than zero: `--timeout 2.5`.
    func seconds(_ value: String, for flag: String) throws(UsageError) -> Double {
        guard let seconds = Double(value), seconds.isFinite, seconds > 0 else {
            throw UsageError("\(flag) needs a number of seconds above 0 (got \"\(value)\")", command: command)
        }
        return seconds
    }

    /// Bytes per second as curl spells them: "500", "100k", "1.5M", "1G" (k = 1024).
    func byteRate(_ value: String, for flag: String) throws(UsageError) -> Int64 {
        let multipliers: [Character: Double] = ["k": 1024, "m": 1_048_576, "g": 1_073_741_824]
        var digits = Substring(value)
        var multiplier = 1.0
        if let last = digits.last?.lowercased().first, let factor = multipliers[last] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard let number = Double(digits), number.isFinite, number > 0, number * multiplier < 1e15 else {
            throw UsageError(
                "\(flag) needs bytes per second, like 500, 100k or 1.5M (got \"\(value)\")", command: command)
        }
        return max(1, Int64(number * multiplier))
    }

    /// "Name: value" for a request header. A line break or NUL would let the value start a header
    /// (or a request) of its own, so it is refused here rather than escaped.
    func header(_ value: String, for flag: String) throws(UsageError) -> HeaderLine {
        guard let colon = value.firstIndex(of: ":") else {
            // Not quoted back: a header is often a credential ("Authorization Bearer ...").
            throw UsageError("\(flag) needs \"Name: value\", with a colon", command: command)
        }
        let name = String(value[..<colon])
        let fieldValue = value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        let tokenCharacters = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789")
            .union(CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(tokenCharacters.contains) else {
            throw UsageError("\(flag): \"\(name)\" is not a header name", command: command)
        }
        guard !fieldValue.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw UsageError("\(flag): the value of \(name) holds a line break or NUL", command: command)
        }
        return HeaderLine(name: name, value: fieldValue)
    }

    /// An absolute http or https URL with a host: what Courier can fetch. Anything else is
    /// refused before a single request starts, rather than failing one request later.
    func url(_ text: String) throws(UsageError) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
        else {
            throw UsageError("not an http or https URL: \"\(CredentialMask.url(text))\"", command: command)
        }
        return url
    }
}

/// A request header from `-H`.
struct HeaderLine: Sendable, Equatable {
    let name: String
    let value: String
}
