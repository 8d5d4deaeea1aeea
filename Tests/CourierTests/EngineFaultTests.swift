import CCurl
import XCTest

@testable import Courier

/// Failures of libcurl's multi interface, turned into request errors.
final class EngineFaultTests: XCTestCase {
    func testThatAMultiErrorFailsTheRequestWithLibcurlsText() throws {
        let url = URL(string: "http://127.0.0.1:9/x")
        let error = CurlErrorMapping.error(for: CURLM_BAD_EASY_HANDLE, in: "curl_multi_remove_handle", url: url)
        XCTAssertEqual(error.type, .unhandledException)
        XCTAssertEqual(error.url, url)
        XCTAssertNil(error.curlCode, "a CURLMcode is no CURLcode")
        XCTAssertEqual(
            error.message,
            "curl_multi_remove_handle failed: Invalid easy handle (curl multi code 2)")
    }
}
