import Foundation

/// IMF-fixdate (RFC 9110 §5.6.7), "Tue, 01 Dec 2026 00:00:00 GMT": how If-Modified-Since is sent
/// and Last-Modified is read for `-N`.
enum HTTPDateText {
    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }

    static func string(from date: Date) -> String {
        formatter().string(from: date)
    }

    static func date(from text: String) -> Date? {
        formatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
