import CourierTestServer
import CourierTestSupport
import XCTest

@testable import Courier

/// libcurl adds `Expect: 100-continue` to a body of unknown length (chunked) and to one over 1
/// MiB, then waits up to a second for the server's 100. ASI never sent Expect, and many servers
/// and proxies handle it poorly: a chunked body goes without it, as a small one does. A user's
/// own Expect header is sent as given.
final class ExpectHeaderTests: ServerTestCase {
    private static let sample = Data((0..<50_000).map { UInt8($0 % 251) })

    private func send(method: String, compressed: Bool = false, header: String? = nil) -> RecordedRequest? {
        let request = HTTPRequest(url: server.url(.echo))
        request.requestMethod = method
        request.shouldCompressRequestBody = compressed
        if let header { request.addRequestHeader("Expect", value: header) }
        request.setPostBodyStream(length: nil) { InputStream(data: Self.sample) }
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.responseStatusCode, 200)
        return server.recordedRequests.last
    }

    func testThatAChunkedBodyIsSentWithoutExpect() throws {
        for method in ["POST", "PUT", "PATCH"] {
            let recorded = try XCTUnwrap(send(method: method))
            XCTAssertEqual(recorded.header("Transfer-Encoding"), "chunked", method)
            XCTAssertNil(recorded.header("Expect"), "\(method) sent Expect: \(recorded.headers)")
            XCTAssertEqual(recorded.body, Self.sample, method)
        }
    }

    func testThatABodyCompressedAsItIsSentGoesWithoutExpect() throws {
        let request = HTTPRequest(url: server.url(.echo))
        request.shouldCompressRequestBody = true
        request.postBody = Self.sample
        request.startSynchronous()
        XCTAssertNil(request.error)
        let recorded = try XCTUnwrap(server.recordedRequests.last)
        XCTAssertEqual(recorded.header("Content-Encoding"), "gzip")
        XCTAssertNil(recorded.header("Expect"), "sent Expect: \(recorded.headers)")
    }

    func testThatAUsersOwnExpectHeaderIsSent() throws {
        let recorded = try XCTUnwrap(send(method: "POST", header: "100-continue"))
        XCTAssertEqual(recorded.headers(named: "Expect"), ["100-continue"])
        XCTAssertEqual(recorded.body, Self.sample)
    }
}
