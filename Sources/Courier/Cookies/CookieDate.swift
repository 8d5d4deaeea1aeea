import Foundation

/// RFC 6265 §5.1.1's cookie-date: the forgiving reading of an Expires attribute that browsers
/// share ("Wed, 21 Oct 2037 07:28:00 GMT", "Wednesday, 21-Oct-37 07:28:00 GMT", asctime's
/// order), always UTC. Nil when a part is missing or out of range.
enum CookieDate {
    static func parse(_ text: Substring) -> Date? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.split(whereSeparator: isDelimiter) {
            if time == nil, let parsed = parseTime(token) {
                time = parsed
            } else if day == nil, let digits = leadingDigits(token, 1...2) {
                day = digits
            } else if month == nil, let parsed = parseMonth(token) {
                month = parsed
            } else if year == nil, let digits = leadingDigits(token, 2...4) {
                year = digits
            }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    /// %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E.
    private static func isDelimiter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return ascii == 0x09 || (0x20...0x2F).contains(ascii) || (0x3B...0x40).contains(ascii)
            || (0x5B...0x60).contains(ascii) || (0x7B...0x7E).contains(ascii)
    }

    /// A number of `count` digits at the start of the token, followed by no other digit.
    private static func leadingDigits(_ token: Substring, _ count: ClosedRange<Int>) -> Int? {
        let digits = token.prefix(while: isDigit)
        guard count.contains(digits.count) else { return nil }
        return Int(digits)
    }

    /// hms-time: 1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT, then anything but a digit.
    private static func parseTime(_ token: Substring) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].allSatisfy(isDigit), parts[1].allSatisfy(isDigit),
            let hour = leadingDigits(parts[0], 1...2), let minute = leadingDigits(parts[1], 1...2),
            let second = leadingDigits(parts[2], 1...2)
        else { return nil }
        return (hour, minute, second)
    }

    private static func isDigit(_ character: Character) -> Bool { character.isASCII && character.isNumber }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func parseMonth(_ token: Substring) -> Int? {
        guard token.count >= 3 else { return nil }
        return months.firstIndex(of: token.prefix(3).lowercased()).map { $0 + 1 }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
