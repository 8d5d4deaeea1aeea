import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Responses whose first line is not an HTTP/1.x status line, and floods of interim responses.
extension FaultTests {
    /// A response `statusLine`, then a well-formed rest, so only the status line can be at fault.
    private func response(statusLine: String) -> Route {
        .verbatim(statusLine + "\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
    }

    func testThatMalformedStatusLinesFailOnceEverywhere() throws {
        let lines = [
            "HTTP/1.1 abc OK",  // a code that is no number
            "HTTP/1.1 99999 X",  // a code of five digits
            "",  // no status line at all: the head starts with its blank line
            "HTTP/9.9 200 OK",  // a version no one speaks
            "HTTP/1.1 200\u{0} OK",  // a NUL inside the line
            "HTTP/1.1 2\u{0}00 OK",  // a NUL inside the code
        ]
        for line in lines {
            try assertOneFailureEverywhere(server.url(response(statusLine: line)), .connectionFailure)
        }
        try assertOneFailureEverywhere(server.url(.malformedStatus), .connectionFailure)
    }

    /// HTTP/0.9 (a body with no status line) is refused: libcurl 7.88 allows it only with
    /// CURLOPT_HTTP09_ALLOWED, which Courier never sets; a body without a head could be any
    /// bytes a non-HTTP service on the port sent back (protocol confusion, CWE-444 class).
    func testThatAnHTTP09ResponseIsRefusedEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.verbatim("just a body, no status line\n")), .connectionFailure)
    }

    /// 10,000 `100 Continue` heads (250 KB) before the response.
    func testThatAFloodOfInterimResponsesEndsOnce() throws {
        let request = HTTPRequest(url: server.url(.informationalFlood(10_000)))
        let counter = EndCounter()
        counter.watch(request)
        request.timeOutSeconds = 2
        request.startAsynchronous()
        waitUntil(timeout: 10) { counter.ends >= 2 }
        spinMainQueue(for: Self.grace)
        XCTAssertEqual(counter.ends, 2, counter.log.all.description)
        XCTAssertNil(request.error, String(describing: request.error))
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.responseString(), "ok")
    }

    /// Interim heads without end must not hold the request for ever, although each one is
    /// progress that resets the no-progress timer: libcurl's bound on the bytes of all heads of
    /// a response (CVE-2023-38039, "HTTP headers eat all memory") ends it.
    func testThatAnEndlessStreamOfInterimResponsesFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.endlessInformational), .connectionFailure)
    }
}
