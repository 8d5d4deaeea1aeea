import Courier
import Foundation

/// When `--retry N` tries a transfer again, and how long it waits first.
///
/// Retried: a connection failure (refused, reset, DNS, a body cut short), a timeout, and the
/// statuses that say "later": 408, 429, 500, 502, 503 and 504. Not retried: anything the same
/// request would meet again (a 404, bad credentials, a body that cannot be decoded).
struct RetryPolicy: Equatable {
    /// The statuses worth asking again.
    static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The first wait; each later one doubles, up to `maxBackoff`, as curl's `--retry` does.
    static let firstBackoff: TimeInterval = 1
    static let maxBackoff: TimeInterval = 60
    /// The longest a Retry-After is honoured for: a server asking for more gets this.
    static let maxRetryAfter: TimeInterval = 600

    /// `--retry N`: at most this many tries after the first.
    let retries: Int

    /// Whether a request that failed with `error` is worth another try.
    static func isRetryable(_ error: HTTPRequestError) -> Bool {
        error.type == .connectionFailure || error.type == .requestTimedOut
    }

    /// Whether a finished response with `status` is worth another try.
    static func isRetryable(status: Int) -> Bool {
        retryableStatuses.contains(status)
    }

    /// The wait before try number `attempt + 1` (`attempt` tries done, from 1): what Retry-After
    /// says when the response has one, else 1 s, 2 s, 4 s ... up to 60 s.
    func delay(afterAttempt attempt: Int, retryAfter: String?, now: Date = Date()) -> TimeInterval {
        if let retryAfter, let seconds = Self.seconds(inRetryAfter: retryAfter, now: now) {
            return min(seconds, Self.maxRetryAfter)
        }
        let exponent = Double(max(0, min(attempt - 1, 16)))
        return min(Self.firstBackoff * pow(2, exponent), Self.maxBackoff)
    }

    /// RFC 9110 §10.2.3: delay-seconds ("120") or an HTTP-date, from which the wait is counted.
    static func seconds(inRetryAfter value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
