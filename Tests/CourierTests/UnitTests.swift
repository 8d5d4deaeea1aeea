import CCurl
import XCTest

@testable import Courier

/// Fast tests without sockets: header parsing, encodings, error mapping.
final class HTTPHeadersTests: XCTestCase {
    func testThatLookupIgnoresCaseAndKeepsSpelling() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain"]
        XCTAssertEqual(headers["content-type"], "text/plain")
        headers["CONTENT-TYPE"] = "text/html"
        XCTAssertEqual(headers.map(\.name), ["Content-Type"], "setting keeps the first spelling and place")
        XCTAssertEqual(headers["Content-Type"], "text/html")
        headers["content-type"] = nil
        XCTAssertTrue(headers.isEmpty)
    }

    func testThatRepeatsJoinExceptSetCookie() {
        var headers = HTTPHeaders()
        headers.add(name: "Accept", value: "a")
        headers.add(name: "Set-Cookie", value: "x=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT")
        headers.add(name: "accept", value: "b")
        headers.add(name: "set-cookie", value: "y=2")
        XCTAssertEqual(headers["ACCEPT"], "a, b")
        XCTAssertEqual(headers.values(for: "Set-Cookie").count, 2)
        XCTAssertEqual(headers.count, 3)
        XCTAssertEqual(Array(headers.map(\.name)), ["Accept", "Set-Cookie", "set-cookie"])
    }

    func testThatHeadersAreHashableAndEquatable() {
        let a: HTTPHeaders = ["A": "1", "B": "2"]
        let b = HTTPHeaders([("A", "1"), ("B", "2")])
        XCTAssertEqual(a, b)
        XCTAssertEqual(Set([a, b]).count, 1)
    }
}

final class ResponseHeadParserTests: XCTestCase {
    func testThatInterimResponsesAreSkippedAndTheFinalHeadIsReturned() {
        var parser = ResponseHeadParser()
        for line in ["HTTP/1.1 100 Continue\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Location: /x\r\n"] {
            XCTAssertNil(parser.consume(line))
        }
        XCTAssertNil(parser.consume("X-Folded: first\r\n"))
        XCTAssertNil(parser.consume("  second\r\n"))
        XCTAssertNil(parser.consume("Empty:\r\n"))
        let head = parser.consume("\r\n")
        XCTAssertEqual(head?.statusCode, 201)
        XCTAssertEqual(head?.statusLine, "HTTP/1.1 201 Created")
        XCTAssertEqual(head?.headers["location"], "/x")
        XCTAssertEqual(head?.headers["X-Folded"], "first second")
        XCTAssertEqual(head?.headers["Empty"], "")
    }

    func testThatHTTP2StatusLinesWithoutAReasonParse() {
        var parser = ResponseHeadParser()
        _ = parser.consume("HTTP/2 204 \r\n")
        let head = parser.consume("\r\n")
        XCTAssertEqual(head?.statusCode, 204)
        XCTAssertEqual(head?.statusLine, "HTTP/2 204", "libcurl's trailing space is trimmed")
    }

    func testThatAMalformedStatusGivesZero() {
        var parser = ResponseHeadParser()
        _ = parser.consume("HTTP/1.1 2x0 Odd\r\n")
        XCTAssertEqual(parser.consume("\r\n")?.statusCode, 0)
    }

    func testThatAKeepAliveTimeoutIsReadInAnyOrderAndCase() {
        func timeout(_ value: String) -> Int? {
            var parser = ResponseHeadParser()
            _ = parser.consume("HTTP/1.1 200 OK\r\n")
            _ = parser.consume("Keep-Alive: \(value)\r\n")
            return parser.consume("\r\n")?.keepAliveTimeout.map(Int.init)
        }
        XCTAssertEqual(timeout("timeout=5, max=100"), 5)
        XCTAssertEqual(timeout("max=100,Timeout = 7"), 7)
        XCTAssertEqual(timeout("timeout=0"), 0)
        XCTAssertNil(timeout("max=100"))
        XCTAssertNil(timeout("timeouts=5"))
        XCTAssertNil(timeout("timeout="))
        var parser = ResponseHeadParser()
        _ = parser.consume("HTTP/1.1 200 OK\r\n")
        _ = parser.consume("Kept: timeout=5\r\n")
        XCTAssertNil(parser.consume("\r\n")?.keepAliveTimeout)
    }

    func testThatAHeadKnowsWhetherItListedContentCodings() {
        func head(_ lines: [String]) -> ResponseHead? {
            var parser = ResponseHeadParser()
            for line in ["HTTP/1.1 200 OK\r\n"] + lines { _ = parser.consume(line) }
            return parser.consume("\r\n")
        }
        let plain = head(["Content-Type: text/plain\r\n", "Content-Length: 3\r\n", "Connection: keep-alive\r\n"])
        XCTAssertEqual(plain?.hasContentEncoding, false)
        XCTAssertEqual(plain.map(HTTPRequest.isCompressed), false)
        let gzipped = head(["Content-Type: text/plain\r\n", "CONTENT-ENCODING: gzip\r\n"])
        XCTAssertEqual(gzipped?.hasContentEncoding, true)
        XCTAssertEqual(gzipped.map(HTTPRequest.isCompressed), true)
        XCTAssertEqual(head(["content-encoding: identity\r\n"]).map(HTTPRequest.isCompressed), false)
        // An interim response's fields belong to it alone.
        var parser = ResponseHeadParser()
        for line in ["HTTP/1.1 103 Early Hints\r\n", "Content-Encoding: gzip\r\n", "\r\n", "HTTP/1.1 200 OK\r\n"] {
            _ = parser.consume(line)
        }
        XCTAssertEqual(parser.consume("\r\n")?.hasContentEncoding, false)
        // A head made some other way is searched.
        let made = ResponseHead(
            statusCode: 200, statusLine: "HTTP/1.1 200 OK",
            headerBlock: RawHeaderBlock(HTTPHeaders([("Content-Encoding", "deflate")])))
        XCTAssertTrue(HTTPRequest.isCompressed(made))
    }

    func testThatOriginsIgnoreCaseUserInfoPathAndDefaultPorts() {
        XCTAssertEqual(KeepAliveLimits.origin(of: "HTTP://User:pw@Example.com:80/a?b"), "http://example.com")
        XCTAssertEqual(KeepAliveLimits.origin(of: "https://example.com:443"), "https://example.com")
        XCTAssertEqual(KeepAliveLimits.origin(of: "http://127.0.0.1:8080/x#y"), "http://127.0.0.1:8080")
        XCTAssertEqual(KeepAliveLimits.origin(of: "http://[::1]:8080/"), "http://[::1]:8080")
    }
}

final class EncodingAndErrorTests: XCTestCase {
    func testThatCharsetsAreFoundAnywhereAmongParameters() {
        XCTAssertEqual(ContentType.charset(in: "text/plain; charset=UTF-8"), "UTF-8")
        XCTAssertEqual(ContentType.charset(in: "text/plain; format=flowed; CHARSET=\"utf-16\"; delsp=yes"), "utf-16")
        XCTAssertNil(ContentType.charset(in: "text/plain"))
        XCTAssertEqual(ContentType.mimeType(in: "Text/HTML ; charset=x"), "text/html")
    }

    func testThatIANANamesMapToEncodings() {
        XCTAssertEqual(String.Encoding(ianaCharsetName: "Shift_JIS"), .shiftJIS)
        XCTAssertEqual(String.Encoding(ianaCharsetName: "ISO-8859-1"), .isoLatin1)
        XCTAssertEqual(String.Encoding(ianaCharsetName: "us-ascii"), .ascii)
        XCTAssertNil(String.Encoding(ianaCharsetName: "klingon"))
        XCTAssertEqual(String.Encoding.windowsCP1252.ianaCharsetName, "windows-1252")
    }

    func testThatCurlCodesMapToASIErrorTypes() {
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_COULDNT_CONNECT), .connectionFailure)
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_COULDNT_RESOLVE_HOST), .connectionFailure)
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_PARTIAL_FILE), .connectionFailure)
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_OPERATION_TIMEDOUT), .requestTimedOut)
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_UNSUPPORTED_PROTOCOL), .connectionFailure)
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_URL_MALFORMAT), .unableToCreateRequest)
        XCTAssertEqual(CurlErrorMapping.type(for: CURLE_TOO_MANY_REDIRECTS), .tooMuchRedirection)
        let tls = CurlErrorMapping.error(for: CURLE_PEER_FAILED_VERIFICATION, text: "bad cert", url: nil)
        XCTAssertEqual(tls.type, .connectionFailure)
        XCTAssertTrue(tls.message.contains("TLS"))
    }

    func testThatErrorCodesAreASIs() {
        // ASI's eleven, then serviceError (12), the S3 family's (API.md).
        XCTAssertEqual(NetworkErrorType.allCases.map(\.rawValue), Array(1...12))
        let error = HTTPRequestError(type: .requestTimedOut, message: "slow", url: URL(string: "http://h/p"))
        XCTAssertEqual(error.code, 2)
        XCTAssertTrue(error.isTimeout)
        XCTAssertEqual(error.description, "The request timed out: slow (http://h/p)")
    }
}

/// The quick check that spares most URLs URL's own scheme and host parsing.
final class URLQuickCheckTests: XCTestCase {
    func testThatOnlyPlainHTTPURLsWithAHostPassTheQuickCheck() {
        for text in ["http://example.com/", "HTTPS://a", "http://1.2.3.4:80/x", "https://h?q", "http://h#f"] {
            XCTAssertTrue(RequestValidation.hasSchemeAndHost(text), text)
        }
        // False sends the URL to the full check, which decides.
        for text in [
            "http:///x", "http://:80/", "http://user@/x", "http://user@host/", "ftp://x", "http://[::1]/",
            "httpx://a", "https//a", "http://", "http:", "",
        ] {
            XCTAssertFalse(RequestValidation.hasSchemeAndHost(text), text)
        }
    }
}

/// The Content-Length the parser reads as the head arrives (the body's room is reserved from it).
final class ContentLengthParsingTests: XCTestCase {
    private func head(_ lines: [String]) -> ResponseHead? {
        var parser = ResponseHeadParser()
        var result: ResponseHead?
        let all = ["HTTP/1.1 200 OK\r\n"] + lines.map { $0 + "\r\n" } + ["\r\n"]
        for line in all {
            if let head = parser.consume(line) { result = head }
        }
        return result
    }

    func testThatContentLengthIsReadInAnyCaseWithSpaces() {
        XCTAssertEqual(head(["Server: x", "Content-Length: 65536"])?.contentLength, 65536)
        XCTAssertEqual(head(["content-length:12 "])?.contentLength, 12)
        XCTAssertEqual(head(["CONTENT-LENGTH:\t0"])?.contentLength, 0)
    }

    func testThatOtherFieldsAndOddValuesGiveNone() {
        XCTAssertNil(head(["Content-Type: text/plain"])?.contentLength)
        XCTAssertNil(head(["Content-Lengthy: 3"])?.contentLength)
        XCTAssertNil(head(["Content-Length: 12x"])?.contentLength)
        XCTAssertNil(head(["Content-Length: "])?.contentLength)
        XCTAssertNil(head(["Content-Length: 99999999999999999999999"])?.contentLength)
        // The parser reads the first; the transfer refuses such a response as malformed (FramingTests).
        XCTAssertEqual(head(["Content-Length: 7", "Content-Length: 9"])?.contentLength, 7, "the first one is read")
    }
}
