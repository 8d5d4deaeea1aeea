import XCTest

@testable import Courier

/// The PAC helpers and the parsing of `FindProxyForURL`'s answers, against the examples of the
/// Netscape PAC specification; no sockets (names that need resolving are only "localhost").
final class PACScriptTests: XCTestCase {
    private func script(
        _ source: String = "function FindProxyForURL(url, host) { return 'DIRECT'; }"
    ) throws
        -> PACScript
    {
        try PACScript(source: source)
    }

    private func value(
        _ expression: String, in script: PACScript, file: StaticString = #filePath, line: UInt = #line
    )
        throws -> String
    {
        switch script.evaluate(expression) {
        case .success(let text): return text
        case .failure(let error):
            XCTFail("\(expression) failed: \(error.message)", file: file, line: line)
            return ""
        }
    }

    private func assertAll(_ expressions: [String: String], file: StaticString = #filePath, line: UInt = #line) throws {
        let pac = try script()
        for (expression, expected) in expressions.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(try value(expression, in: pac), expected, expression, file: file, line: line)
        }
    }

    func testHostHelpersFollowTheSpecExamples() throws {
        try assertAll([
            "isPlainHostName('www')": "true",
            "isPlainHostName('www.netscape.com')": "false",
            "dnsDomainIs('www.netscape.com', '.netscape.com')": "true",
            "dnsDomainIs('www', '.netscape.com')": "false",
            "dnsDomainIs('www.mcom.com', '.netscape.com')": "false",
            "localHostOrDomainIs('www.netscape.com', 'www.netscape.com')": "true",
            "localHostOrDomainIs('www', 'www.netscape.com')": "true",
            "localHostOrDomainIs('www.mcom.com', 'www.netscape.com')": "false",
            "localHostOrDomainIs('home.netscape.com', 'www.netscape.com')": "false",
            "dnsDomainLevels('www')": "0",
            "dnsDomainLevels('www.netscape.com')": "2",
            "shExpMatch('http://home.netscape.com/people/ari/index.html', '*/ari/*')": "true",
            "shExpMatch('http://home.netscape.com/people/montulli/index.html', '*/ari/*')": "false",
            "shExpMatch('www.a+b.com', '*.a+b.com')": "true",
            "shExpMatch('ab', 'a?')": "true",
            "shExpMatch('abc', 'a?')": "false",
        ])
    }

    func testNetworkHelpers() throws {
        try assertAll([
            "isInNet('198.95.249.79', '198.95.249.79', '255.255.255.255')": "true",
            "isInNet('198.95.6.8', '198.95.0.0', '255.255.0.0')": "true",
            "isInNet('198.96.6.8', '198.95.0.0', '255.255.0.0')": "false",
            "isInNet('10.1.2.3', '10.0.0.0', '255.0.0.0')": "true",
            "isInNet('200.1.2.3', '200.0.0.0', '255.0.0.0')": "true",
            "isInNet('localhost', '127.0.0.0', '255.0.0.0')": "true",
            "isInNet('999.1.1.1', '0.0.0.0', '0.0.0.0')": "false",
            "dnsResolve('localhost')": "127.0.0.1",
            "dnsResolve('127.0.0.1')": "127.0.0.1",
            "isResolvable('localhost')": "true",
            "isResolvable('')": "false",
            "/^\\d+\\.\\d+\\.\\d+\\.\\d+$/.test(myIpAddress())": "true",
        ])
    }

    /// A fixed "now" (Wednesday 15 May 2024, 14:30:15 local time) for the time helpers.
    private func scriptAtFixedTime() throws -> PACScript {
        let pac = try script()
        _ = try value("__pacNow = function () { return new Date(2024, 4, 15, 14, 30, 15); }", in: pac)
        return pac
    }

    func testWeekdayRange() throws {
        let pac = try scriptAtFixedTime()
        let cases = [
            "weekdayRange('MON', 'FRI')": "true",
            "weekdayRange('WED')": "true",
            "weekdayRange('THU')": "false",
            "weekdayRange('SAT', 'SUN')": "false",
            "weekdayRange('FRI', 'WED')": "true",
            "weekdayRange('FRI', 'TUE')": "false",
            "weekdayRange('XYZ')": "false",
        ]
        for (expression, expected) in cases { XCTAssertEqual(try value(expression, in: pac), expected, expression) }
    }

    func testDateRange() throws {
        let pac = try scriptAtFixedTime()
        let cases = [
            "dateRange(15)": "true",
            "dateRange(1)": "false",
            "dateRange(1, 15)": "true",
            "dateRange(16, 31)": "false",
            "dateRange('MAY')": "true",
            "dateRange('JAN', 'MAR')": "false",
            "dateRange('APR', 'JUN')": "true",
            "dateRange('NOV', 'JUN')": "true",
            "dateRange(2024)": "true",
            "dateRange(1995, 1997)": "false",
            "dateRange(1, 'MAY', 15, 'MAY')": "true",
            "dateRange(16, 'MAY', 1, 'JUN')": "false",
            "dateRange('APR', 2024, 'JUN', 2024)": "true",
            "dateRange(1, 'JUN', 2024, 15, 'AUG', 2025)": "false",
            "dateRange(1, 'JUN', 1995, 15, 'AUG', 2025)": "true",
            "dateRange(1, 'JAN', 2024, 15, 'MAY', 2024)": "true",
            "dateRange(1, 2, 3)": "false",
        ]
        for (expression, expected) in cases { XCTAssertEqual(try value(expression, in: pac), expected, expression) }
    }

    func testTimeRange() throws {
        let pac = try scriptAtFixedTime()
        let cases = [
            "timeRange(14)": "true",
            "timeRange(12)": "false",
            "timeRange(9, 17)": "true",
            "timeRange(22, 6)": "false",
            "timeRange(8, 30, 14, 30)": "true",
            "timeRange(14, 31, 17, 0)": "false",
            "timeRange(14, 30, 0, 14, 30, 15)": "true",
            "timeRange(14, 30, 16, 14, 30, 59)": "false",
            "timeRange(1, 2, 3)": "false",
        ]
        for (expression, expected) in cases { XCTAssertEqual(try value(expression, in: pac), expected, expression) }
        // GMT reads the UTC fields: the hour of the fixed moment in UTC.
        let utcHour = try value("new Date(2024, 4, 15, 14, 30, 15).getUTCHours()", in: pac)
        XCTAssertEqual(try value("timeRange(\(utcHour), 'GMT')", in: pac), "true")
    }

    func testFindProxyForURLGetsTheURLAndHost() throws {
        let pac = try script(
            """
            function FindProxyForURL(url, host) {
                if (isPlainHostName(host) || dnsDomainIs(host, ".intranet.example")) return "DIRECT";
                if (shExpMatch(url, "http://*/private/*")) return "SOCKS5 socks.example:1080";
                return "PROXY w3proxy.example:8080; PROXY mozilla.example:8081; DIRECT";
            }
            """)
        XCTAssertEqual(try pac.findProxy(url: "http://www/", host: "www").answer.get(), "DIRECT")
        XCTAssertEqual(
            try pac.findProxy(url: "http://a.example/private/x", host: "a.example").answer.get(),
            "SOCKS5 socks.example:1080")
        XCTAssertEqual(
            try pac.findProxy(url: "http://a.example/", host: "a.example").answer.get(),
            "PROXY w3proxy.example:8080; PROXY mozilla.example:8081; DIRECT")
    }

    func testBrokenScriptsSayWhatIsWrong() {
        XCTAssertThrowsError(try PACScript(source: "function FindProxyForURL(url, host) { return 'DIRECT'; ")) {
            XCTAssertTrue(($0 as? PACScriptError)?.message.contains("SyntaxError") == true, "\($0)")
        }
        XCTAssertThrowsError(try PACScript(source: "function findProxy(url, host) { return 'DIRECT'; }")) {
            XCTAssertEqual(($0 as? PACScriptError)?.message, "it defines no function FindProxyForURL(url, host)")
        }
        let throwing = try? PACScript(source: "function FindProxyForURL(url, host) { throw new Error('nope'); }")
        XCTAssertThrowsError(try throwing?.findProxy(url: "http://a/", host: "a").answer.get()) {
            XCTAssertEqual(($0 as? PACScriptError)?.message, "FindProxyForURL threw Error: nope")
        }
        let numeric = try? PACScript(source: "function FindProxyForURL(url, host) { return 42; }")
        XCTAssertThrowsError(try numeric?.findProxy(url: "http://a/", host: "a").answer.get()) {
            XCTAssertEqual(($0 as? PACScriptError)?.message, "FindProxyForURL returned 42, which is not a string")
        }
    }

    func testAlertsAreCollectedForTheLog() throws {
        let pac = try script("function FindProxyForURL(url, host) { alert('asked for ' + host); return 'DIRECT'; }")
        let (answer, alerts) = pac.findProxy(url: "http://a.example/", host: "a.example")
        XCTAssertEqual(try answer.get(), "DIRECT")
        XCTAssertEqual(alerts, "asked for a.example")
        XCTAssertEqual(pac.findProxy(url: "http://b/", host: "b").alerts, "asked for b")
    }

    func testAScriptIsSafeFromManyThreads() throws {
        let pac = try script("function FindProxyForURL(url, host) { return 'PROXY ' + host + ':1'; }")
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let answer = pac.findProxy(url: "http://h\(index)/", host: "h\(index)").answer
            XCTAssertEqual(try? answer.get(), "PROXY h\(index):1")
        }
    }

    func testAnswersParseIntoChoicesInOrder() {
        let (choices, skipped) = PACChoice.parse(
            "PROXY w3proxy.example:8080; SOCKS socks:1080 ;SOCKS5 s5.example:1081; HTTPS secure.example:8443;"
                + " HTTP plain.example; PROXY [::1]:3128; direct")
        XCTAssertEqual(
            choices,
            [
                .proxy(.http, host: "w3proxy.example", port: 8080), .proxy(.socks4, host: "socks", port: 1080),
                .proxy(.socks5, host: "s5.example", port: 1081), .proxy(.https, host: "secure.example", port: 8443),
                .proxy(.http, host: "plain.example", port: 80), .proxy(.http, host: "::1", port: 3128), .direct,
            ])
        XCTAssertEqual(skipped, [])
        XCTAssertEqual(
            choices.map(\.curlProxy),
            [
                "http://w3proxy.example:8080", "socks4://socks:1080", "socks5h://s5.example:1081",
                "https://secure.example:8443", "http://plain.example:80", "http://[::1]:3128", "",
            ])
        // As logged: what the file wrote, so it parses back to the same choices.
        let written = choices.map(\.description)
        XCTAssertEqual(
            written,
            [
                "PROXY w3proxy.example:8080", "SOCKS socks:1080", "SOCKS5 s5.example:1081", "HTTPS secure.example:8443",
                "PROXY plain.example:80", "PROXY [::1]:3128", "DIRECT",
            ])
        XCTAssertEqual(PACChoice.parse(written.joined(separator: "; ")).choices, choices)
        let odd = PACChoice.parse("PROXY; FTP x:1; PROXY a:99999; PROXY b:1 c:2; DIRECT now; PROXY ok:1")
        XCTAssertEqual(odd.choices, [.proxy(.http, host: "ok", port: 1)])
        XCTAssertEqual(odd.skipped, ["PROXY", "FTP x:1", "PROXY a:99999", "PROXY b:1 c:2", "DIRECT now"])
        XCTAssertEqual(PACChoice.parse("  ").choices, [])
    }
}
