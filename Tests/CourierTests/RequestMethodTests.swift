import Courier
import CourierTestServer
import XCTest

/// Every verb, synchronously and asynchronously, checked on the server's side.
final class RequestMethodTests: XCTestCase {
    private let bodyMethods = ["POST", "PUT", "PATCH", "DELETE"]

    func testThatEveryMethodArrivesSynchronously() throws {
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
            // Given
            let request = HTTPRequest(url: Fixture.url(.echo))
            request.requestMethod = method
            let body = Data("body for \(method) \u{00e9}\u{0000}\u{00ff}".utf8)
            if bodyMethods.contains(method) { request.postBody = body }

            // When
            request.startSynchronous()

            // Then
            XCTAssertNil(request.error, method)
            XCTAssertEqual(request.responseStatusCode, 200, method)
            let echo = try Echo(from: request)
            XCTAssertEqual(echo.method, method)
            XCTAssertEqual(echo.bodyData, bodyMethods.contains(method) ? body : Data(), method)
            XCTAssertEqual(request.totalBytesSent, bodyMethods.contains(method) ? Int64(body.count) : 0, method)
        }
    }

    func testThatEveryMethodArrivesAsynchronously() throws {
        let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]
        var requests: [HTTPRequest] = []
        for method in methods {
            let request = HTTPRequest(url: Fixture.url(.echo))
            request.requestMethod = method
            if bodyMethods.contains(method) { request.postBody = Data("async \(method)".utf8) }
            requests.append(request)
        }
        let done = expectation(description: "all finished")
        done.expectedFulfillmentCount = methods.count
        for request in requests {
            request.setCompletionBlock { _ in done.fulfill() }
            request.setFailedBlock { request in XCTFail("\(request) failed: \(String(describing: request.error))") }
            request.startAsynchronous()
        }
        wait(for: [done], timeout: 10)

        for (method, request) in zip(methods, requests) {
            XCTAssertEqual(request.responseStatusCode, 200, method)
            if method == "HEAD" {
                XCTAssertNil(request.responseData(), "a HEAD response has no body")
                XCTAssertNotNil(request.responseHeaders["Content-Length"])
                continue
            }
            let echo = try Echo(from: request)
            XCTAssertEqual(echo.method, method)
            XCTAssertEqual(echo.bodyData, bodyMethods.contains(method) ? Data("async \(method)".utf8) : Data())
        }
    }

    func testThatHeadSendsHeadAndReadsNoBody() {
        let request = HTTPRequest(url: Fixture.url(.bytes(5000)))
        request.requestMethod = "HEAD"
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.responseHeaders["Content-Length"], "5000")
        XCTAssertEqual(request.totalBytesRead, 0)
    }

    func testThatABodyMakesAnUnsetMethodPost() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.appendPostData(Data("hello ".utf8))
        request.appendPostData(Data("world".utf8))
        XCTAssertEqual(request.requestMethod, "GET")
        request.startSynchronous()
        XCTAssertEqual(request.requestMethod, "POST")
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.method, "POST")
        XCTAssertEqual(echo.bodyData, Data("hello world".utf8))
        XCTAssertEqual(echo.header("Content-Length"), "11")
        XCTAssertNil(echo.header("Content-Type"), "Courier adds no Content-Type the user did not ask for")
    }

    func testThatAMethodTheUserSetIsKeptWithABody() throws {
        for method in ["GET", "DELETE", "FINK"] {
            let request = HTTPRequest(url: Fixture.url(.echo))
            request.requestMethod = method
            request.postBody = Data("King".utf8)
            request.startSynchronous()
            XCTAssertEqual(request.requestMethod, method)
            let echo = try Echo(from: request)
            XCTAssertEqual(echo.method, method)
            XCTAssertEqual(echo.bodyData, Data("King".utf8))
        }
    }

    func testThatAnEmptyPostSendsContentLengthZero() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.requestMethod = "POST"
        request.startSynchronous()
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.method, "POST")
        XCTAssertEqual(echo.header("Content-Length"), "0")
        XCTAssertEqual(echo.bodyLength, 0)
    }

    func testThatAnEmptyPostBodyIsNoBody() throws {
        for compresses in [false, true] {
            let request = HTTPRequest(url: Fixture.url(.echo))
            request.postBody = Data()
            request.shouldCompressRequestBody = compresses
            XCTAssertEqual(request.postLength, 0)
            request.startSynchronous()
            XCTAssertNil(request.error)
            XCTAssertEqual(request.requestMethod, "GET", "compresses: \(compresses)")
            let echo = try Echo(from: request)
            XCTAssertEqual(echo.method, "GET")
            XCTAssertEqual(echo.bodyLength, 0)
            // libcurl's POST mode (what a body gets) would announce a length even for nothing.
            XCTAssertNil(echo.header("Content-Length"), "compresses: \(compresses)")
            XCTAssertNil(echo.header("Content-Type"))
            XCTAssertNil(echo.header("Content-Encoding"), "no gzip of nothing")
            XCTAssertEqual(request.totalBytesSent, 0)
        }

        // A POST you ask for with an empty body or none: a POST of nothing, no form type made up.
        for body in [Data(), nil] {
            let request = HTTPRequest(url: Fixture.url(.echo))
            request.requestMethod = "POST"
            request.postBody = body
            request.shouldCompressRequestBody = true
            request.startSynchronous()
            let echo = try Echo(from: request)
            XCTAssertEqual(echo.method, "POST")
            XCTAssertEqual(echo.header("Content-Length"), "0")
            XCTAssertEqual(echo.bodyLength, 0)
            XCTAssertNil(echo.header("Content-Type"), "body: \(String(describing: body))")
            XCTAssertNil(echo.header("Content-Encoding"), "body: \(String(describing: body))")
        }
    }

    func testThatABinaryBodyArrivesByteForByte() throws {
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.requestMethod = "PUT"
        request.postBody = body
        request.startSynchronous()
        XCTAssertNil(request.error)
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.bodyLength, body.count)
        XCTAssertEqual(echo.bodyData, body)
        XCTAssertEqual(request.totalBytesSent, Int64(body.count))
    }

    func testThatHTTPVersionOneIsSentWhenAsked() throws {
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.useHTTPVersionOne = true
        request.startSynchronous()
        XCTAssertEqual(try Echo(from: request).httpVersion, "HTTP/1.0")
        XCTAssertTrue(request.responseStatusMessage?.hasPrefix("HTTP/1.0 200") ?? false)

        let plain = HTTPRequest(url: Fixture.url(.echo))
        plain.startSynchronous()
        XCTAssertEqual(try Echo(from: plain).httpVersion, "HTTP/1.1")
    }

    func testThatAURLRequestIsTakenOver() throws {
        var urlRequest = URLRequest(url: Fixture.url(.echo))
        urlRequest.httpMethod = "PUT"
        urlRequest.setValue("yes", forHTTPHeaderField: "X-From-URLRequest")
        urlRequest.httpBody = Data("from a URLRequest".utf8)
        urlRequest.timeoutInterval = 7
        let request = HTTPRequest(urlRequest: urlRequest)
        XCTAssertEqual(request.timeOutSeconds, 7)
        request.startSynchronous()
        let echo = try Echo(from: request)
        XCTAssertEqual(echo.method, "PUT")
        XCTAssertEqual(echo.header("X-From-URLRequest"), "yes")
        XCTAssertEqual(echo.bodyData, Data("from a URLRequest".utf8))
    }
}
