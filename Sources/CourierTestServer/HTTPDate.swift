import Glibc

/// Formats HTTP `Date` header values (IMF-fixdate, RFC 9110 §5.6.7).
///
/// Hand-rolled on `gmtime_r` because `DateFormatter` is far too slow for a value
/// every response carries, and the format is fixed and English-only anyway.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Formats seconds since the epoch, e.g. `"Sun, 06 Nov 1994 08:49:37 GMT"`.
    static func format(_ seconds: time_t) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        let clock = "\(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):\(twoDigits(parts.tm_sec))"
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(1900 + parts.tm_year) \(clock) GMT"
    }

    private static func twoDigits(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
