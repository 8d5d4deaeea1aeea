import Glibc

import struct Foundation.Date

/// A moment as the S3 signers write it, in UTC, to the whole second.
///
/// Formatted by hand from `gmtime_r`: a `DateFormatter` is not safe to share across threads and
/// is slow to make, and these strings have one fixed shape whatever the user's locale.
struct AWSTimestamp: Sendable {
    /// `yyyyMMdd'T'HHmmss'Z'`, SigV4's `x-amz-date` (`20130524T000000Z`).
    let dateTime: String
    /// `yyyyMMdd`, the date in SigV4's credential scope (`20130524`).
    let day: String
    /// RFC 9110's IMF-fixdate (`Fri, 24 May 2013 00:00:00 GMT`), a `Date` header's form.
    let httpDate: String

    /// The earliest and latest seconds written: years 1 to 9999, which keep the year four digits.
    private static let representable: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    init(_ date: Date) {
        // A date outside the range (or not a number at all) is pinned to its nearest end rather
        // than trapping on the conversion: the service rejects the stale signature, visibly.
        let seconds = date.timeIntervalSince1970
        let bounds = Self.representable
        let clamped = seconds.isNaN ? 0 : min(max(seconds.rounded(.down), bounds.lowerBound), bounds.upperBound)
        var time = time_t(clamped)
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Self.digits(Int(parts.tm_year) + 1900, 4)
        let month = Self.digits(Int(parts.tm_mon) + 1, 2)
        let dayOfMonth = Self.digits(Int(parts.tm_mday), 2)
        let clock = [Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)].map { Self.digits($0, 2) }
        day = year + month + dayOfMonth
        dateTime = day + "T" + clock.joined() + "Z"
        httpDate =
            Self.weekdays[Int(parts.tm_wday)] + ", " + dayOfMonth + " " + Self.months[Int(parts.tm_mon)] + " " + year
            + " " + clock.joined(separator: ":") + " GMT"
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `value` in decimal, zero-padded on the left to `width` digits.
    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
