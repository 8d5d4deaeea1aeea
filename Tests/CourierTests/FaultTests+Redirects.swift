import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// A redirect chain without end stops at `maxRedirects`.
extension FaultTests {
    func testThatARedirectLoopFailsOnceWithTooMuchRedirectionEverywhere() throws {
        for sink in FaultSink.allCases {
            let before = server.recordedRequests.count
            let (request, _) = try assertOneFailure(server.url(.redirectLoop), .tooMuchRedirection, sink: sink)
            XCTAssertEqual(request.maxRedirects, 5)
            // ASI counts the hop it refused: the sixth redirect is counted, then fails.
            XCTAssertEqual(request.redirectCount, 6, "\(sink)")
            XCTAssertEqual(server.recordedRequests.count - before, 6, "\(sink): the first request and 5 hops")
        }
    }
}
