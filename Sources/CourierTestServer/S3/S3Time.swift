import Foundation
import Glibc

/// The time formats S3 speaks: SigV4's `20130524T000000Z` and XML's `2013-05-24T00:00:00.000Z`.
enum S3Time {
    /// Parses SigV4's basic ISO 8601 form, `yyyyMMdd'T'HHmmss'Z'`; nil for anything else.
    static func parseAMZDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            let digits = bytes[range]
            guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int32(String(decoding: digits, as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// `date` in SigV4's basic form, `20130524T000000Z`.
    static func amzDate(_ date: Date) -> String {
        let parts = utc(date)
        return pad(parts.tm_year + 1900, 4) + pad(parts.tm_mon + 1, 2) + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + pad(parts.tm_min, 2) + pad(parts.tm_sec, 2) + "Z"
    }

    /// `date` as S3's XML writes times, `2013-05-24T00:00:00.000Z`.
    static func xmlDate(_ date: Date) -> String {
        let parts = utc(date)
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + ".000Z"
    }

    /// `date` as S3's error documents write times (`<ServerTime>`, `<Expires>`), `2013-05-24T00:00:00Z`.
    static func errorDate(_ date: Date) -> String {
        String(xmlDate(date).dropLast(5)) + "Z"
    }

    /// `date` as an HTTP `Date` or `Last-Modified` value.
    static func httpDate(_ date: Date) -> String {
        HTTPDate.format(time_t(date.timeIntervalSince1970.rounded(.down)))
    }

    private static func utc(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return parts
    }

    private static func pad(_ value: Int32, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
