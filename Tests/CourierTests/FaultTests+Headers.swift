import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Heads too large to hold: they fail as malformed responses, and memory stays bounded by
/// libcurl's limits (CURL_MAX_HTTP_HEADER, 100 KiB per line; 300 KiB for all heads of a
/// response since the CVE-2023-38039 fix, "HTTP headers eat all memory", CWE-770 class).
extension FaultTests {
    func testThatAOneMebibyteHeaderLineFailsOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.hugeHeader(1 << 20)), .connectionFailure)
        let (request, _) = try assertOneFailure(server.url(.hugeHeader(1 << 20)), .connectionFailure)
        XCTAssertTrue(request.error?.message.contains("malformed response") ?? false, String(describing: request.error))
    }

    func testThatAHundredThousandHeadersFailOnceEverywhere() throws {
        try assertOneFailureEverywhere(server.url(.manyHeaders(100_000)), .connectionFailure)
    }
}
