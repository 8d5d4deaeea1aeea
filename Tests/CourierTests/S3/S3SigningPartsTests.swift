import Foundation
import XCTest

@testable import Courier

/// The signer's own readings of a date and a URL, made by hand for speed, against what the
/// system's reference gives: `gmtime_r` for the calendar and `URLComponents` for a URL's parts.
final class S3SigningPartsTests: XCTestCase {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` formatted from glibc's `gmtime_r`: the timestamp's three strings.
    private func reference(_ seconds: Int) -> (dateTime: String, day: String, httpDate: String) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let day = String(format: "%04d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
        let clock = [parts.tm_hour, parts.tm_min, parts.tm_sec].map { String(format: "%02d", Int($0)) }
        let httpDate =
            "\(Self.weekdays[Int(parts.tm_wday)]), \(String(format: "%02d", Int(parts.tm_mday))) "
            + "\(Self.months[Int(parts.tm_mon)]) \(String(format: "%04d", Int(parts.tm_year) + 1900)) "
            + clock.joined(separator: ":") + " GMT"
        return (day + "T" + clock.joined() + "Z", day, httpDate)
    }

    func testThatTimestampsMatchGmtimeFromYearOneToYear9999() {
        // The ends of the range, the epoch and the second before it, leap days (2000 is a leap
        // year, 1900 and 2100 are not), the ends of eras, then random seconds over the whole range.
        var seconds = [
            -62_135_596_800, -62_135_596_799, -1, 0, 1, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800,
            -2_203_977_600, 4_107_542_400, 4_107_456_000, 946_684_799, 946_684_800, 1_369_353_600, 253_402_300_799,
        ]
        var generator = SeededGenerator(seed: 1970)
        seconds += (0..<20_000).map { _ in Int.random(in: -62_135_596_800...253_402_300_799, using: &generator) }
        for second in seconds {
            let timestamp = AWSTimestamp(Date(timeIntervalSince1970: Double(second)))
            let expected = reference(second)
            XCTAssertEqual(timestamp.dateTime, expected.dateTime, "\(second)")
            XCTAssertEqual(timestamp.day, expected.day, "\(second)")
            XCTAssertEqual(timestamp.httpDate, expected.httpDate, "\(second)")
        }
        // A fraction of a second is dropped, towards the past.
        XCTAssertEqual(AWSTimestamp(Date(timeIntervalSince1970: -0.5)).dateTime, "19691231T235959Z")
        XCTAssertEqual(AWSTimestamp(Date(timeIntervalSince1970: 1_369_353_600.9)).dateTime, "20130524T000000Z")
    }

    func testThatTimestampsOutsideTheFourDigitYearsArePinnedToTheirEnds() {
        XCTAssertEqual(AWSTimestamp(Date(timeIntervalSince1970: -1e15)).dateTime, "00010101T000000Z")
        XCTAssertEqual(AWSTimestamp(Date(timeIntervalSince1970: 1e15)).dateTime, "99991231T235959Z")
        XCTAssertEqual(AWSTimestamp(Date(timeIntervalSince1970: .nan)).dateTime, "19700101T000000Z")
        XCTAssertEqual(AWSTimestamp(Date(timeIntervalSince1970: 1e15)).httpDate, "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    /// What `AWSRequestTarget` read from `url`, beside what it read when it used `URLComponents`.
    private func assertTargetMatchesURLComponents(
        _ url: URL, file: StaticString = #filePath, line: UInt = #line
    ) {
        let target = AWSRequestTarget(url)
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        let scheme = components?.scheme ?? url.scheme ?? "https"
        let hostName = components?.percentEncodedHost ?? ""
        let port = components?.port
        let defaultPorts = ["http": 80, "https": 443]
        let message = url.absoluteString
        XCTAssertEqual(target.scheme, scheme, message, file: file, line: line)
        XCTAssertEqual(target.authority, port.map { "\(hostName):\($0)" } ?? hostName, message, file: file, line: line)
        XCTAssertEqual(
            target.host,
            port.flatMap { $0 == defaultPorts[scheme.lowercased()] ? nil : "\(hostName):\($0)" } ?? hostName,
            message, file: file, line: line)
        XCTAssertEqual(
            String(decoding: target.canonicalPath, as: UTF8.self),
            AWSURIEncoding.canonicalPath(percentEncoded: components?.percentEncodedPath ?? ""), message, file: file,
            line: line)
        let expected = AWSURIEncoding.parameters(percentEncodedQuery: components?.percentEncodedQuery)
        XCTAssertEqual(target.parameters.map(\.name), expected.map(\.name), message, file: file, line: line)
        XCTAssertEqual(target.parameters.map(\.value), expected.map(\.value), message, file: file, line: line)
        XCTAssertEqual(target.parameters.map(\.isBare), expected.map(\.isBare), message, file: file, line: line)
    }

    func testThatARequestTargetReadsAURLAsURLComponentsDoes() throws {
        let texts = [
            "https://bucket.s3.amazonaws.com/key", "https://bucket.s3.amazonaws.com",
            "https://bucket.s3.amazonaws.com/",
            "http://127.0.0.1:9000/bucket/a%20b+c?versionId=3&acl", "http://127.0.0.1:80/b/k", "https://h:443/k",
            "https://h:8443/k?", "HTTPS://Example.COM:443/Key", "http://user:secret@h:9000/b/k?x=1#fragment",
            "http://u@h/k#frag?not-a-query", "http://[::1]:9000/b/k?list-type=2", "http://[2001:db8::1]/b/k",
            "https://h/a//b/./c/../d", "https://h/%2Fleading", "https://h/%2fleading",
            "https://h/caf%C3%A9?q=%e2%82%ac",
            "https://h/k?a=1&&b=2&", "https://h/k?=v&n=", "https://h:/k", "https://h:0080/k", "custom://h:80/k",
            "https://h/%", "https://h/%4", "https://h/%zz?%g1=%",
        ]
        for text in texts {
            assertTargetMatchesURLComponents(try XCTUnwrap(URL(string: text), text))
        }
        let base = try XCTUnwrap(URL(string: "http://127.0.0.1:9000/bucket/"))
        assertTargetMatchesURLComponents(try XCTUnwrap(URL(string: "dir/key?uploads", relativeTo: base)))
        // Every spelling of the random requests the botocore tests sign.
        var random = SeededGenerator(seed: 0x5334_5349_4756_34)
        for index in 0..<400 {
            let request = RandomS3Request.make(index, using: &random)
            assertTargetMatchesURLComponents(try XCTUnwrap(request.courierURL, "request \(index)"))
        }
    }
}
