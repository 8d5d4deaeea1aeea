import struct Foundation.Date

/// A moment as the S3 signers write it, in UTC, to the whole second.
///
/// Formatted by hand: a `DateFormatter` is not safe to share across threads and is slow to make,
/// and these strings have one fixed shape whatever the user's locale. The calendar date comes
/// from the day number by arithmetic (Howard Hinnant's `civil_from_days`), not `gmtime_r`, which
/// takes glibc's time-zone lock on every call; with the digits written straight into the strings,
/// a timestamp went from ~11,500 instructions (callgrind) to ~1,100.
struct AWSTimestamp: Sendable {
    /// `yyyyMMdd'T'HHmmss'Z'`, SigV4's `x-amz-date` (`20130524T000000Z`).
    let dateTime: String
    /// `yyyyMMdd`, the date in SigV4's credential scope (`20130524`).
    let day: String
    private let year: Int
    private let month: Int
    private let dayOfMonth: Int
    private let secondOfDay: Int
    /// 0 for Sunday.
    private let weekday: Int

    /// RFC 9110's IMF-fixdate (`Fri, 24 May 2013 00:00:00 GMT`), a `Date` header's form.
    var httpDate: String {
        var text = Array(Self.weekdays[weekday].utf8) + Array(", ".utf8)
        Self.append(dayOfMonth, digits: 2, to: &text)
        text += Array(" \(Self.months[month - 1]) ".utf8)
        Self.append(year, digits: 4, to: &text)
        text.append(UInt8(ascii: " "))
        Self.appendClock(secondOfDay, separator: UInt8(ascii: ":"), to: &text)
        text += Array(" GMT".utf8)
        return String(decoding: text, as: UTF8.self)
    }

    /// The earliest and latest seconds written: years 1 to 9999, which keep the year four digits.
    private static let representable: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    init(_ date: Date) {
        // A date outside the range (or not a number at all) is pinned to its nearest end rather
        // than trapping on the conversion: the service rejects the stale signature, visibly.
        let seconds = date.timeIntervalSince1970
        let bounds = Self.representable
        let clamped = Int(seconds.isNaN ? 0 : min(max(seconds.rounded(.down), bounds.lowerBound), bounds.upperBound))
        let days = clamped >= 0 ? clamped / 86_400 : (clamped - 86_399) / 86_400
        secondOfDay = clamped - days * 86_400
        // 1970-01-01 was a Thursday.
        weekday = ((days % 7) + 11) % 7
        // civil_from_days (https://howardhinnant.github.io/date_algorithms.html): the day
        // number in 400-year eras of 146,097 days that start on 0000-03-01, so that a leap
        // day is the last day of its year.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        dayOfMonth = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)

        let (year, month, dayOfMonth, secondOfDay) = (year, month, dayOfMonth, secondOfDay)
        // Written on the stack: the day's eight digits make a small string, stored inline, so
        // the two strings cost one allocation, `dateTime`'s.
        (day, dateTime) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { text in
            var position = 0
            for (value, digits) in [
                (year, 4), (month, 2), (dayOfMonth, 2), (secondOfDay / 3600, 2), (secondOfDay / 60 % 60, 2),
                (secondOfDay % 60, 2),
            ] {
                if position == 8 {
                    text[position] = UInt8(ascii: "T")
                    position += 1
                }
                var divisor = digits == 4 ? 1000 : 10
                while divisor > 0 {
                    text[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10)
                    position += 1
                    divisor /= 10
                }
            }
            text[position] = UInt8(ascii: "Z")
            return (
                String(decoding: UnsafeBufferPointer(rebasing: text[0..<8]), as: UTF8.self),
                String(decoding: UnsafeMutableBufferPointer(rebasing: text[0..<16]), as: UTF8.self)
            )
        }
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `HH mm ss` of `secondOfDay`, with `separator` between them when there is one.
    private static func appendClock(_ secondOfDay: Int, separator: UInt8?, to text: inout [UInt8]) {
        append(secondOfDay / 3600, digits: 2, to: &text)
        if let separator { text.append(separator) }
        append(secondOfDay / 60 % 60, digits: 2, to: &text)
        if let separator { text.append(separator) }
        append(secondOfDay % 60, digits: 2, to: &text)
    }

    /// `value` (not negative, at most `digits` digits: 2 or 4) in decimal, zero-padded on the left.
    private static func append(_ value: Int, digits: Int, to text: inout [UInt8]) {
        if digits == 4 {
            appendTwo(value / 100, to: &text)
        }
        appendTwo(value % 100, to: &text)
    }

    /// `value` (0 to 99) as two digits.
    private static func appendTwo(_ value: Int, to text: inout [UInt8]) {
        text.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10))
        text.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10))
    }
}
