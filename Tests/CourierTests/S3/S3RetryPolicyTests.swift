@testable import Courier
import Foundation
import XCTest

/// S3's rules for a response, socket-free: what each answer leads to, and that each retry is
/// spent once.
final class S3RetryPolicyTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    private func error(_ code: String, status: Int, region: String? = nil, serverTime: String? = nil) -> S3Error {
        S3Error(
            code: code, message: "", requestID: nil, resource: nil, region: region, statusCode: status,
            serverTime: serverTime)
    }

    private func verdict(
        _ policy: inout S3RetryPolicy, status: Int, _ error: S3Error?, serverDate: Date? = nil
    ) -> S3RetryPolicy.Verdict {
        policy.verdict(statusCode: status, error: error, region: "us-east-1", now: now, serverDate: serverDate, backoff: 0.2)
    }

    func testThatASuccessWithoutAnErrorDocumentStands() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(verdict(&policy, status: 200, nil), .accept)
        XCTAssertEqual(verdict(&policy, status: 204, nil), .accept)
    }

    func testThatAClientErrorFailsAtOnce() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(verdict(&policy, status: 404, error("NoSuchKey", status: 404)), .fail)
        XCTAssertEqual(verdict(&policy, status: 403, error("AccessDenied", status: 403)), .fail)
    }

    func testThatAServerErrorIsRetriedThreeTimesWithADoublingBackoffThenFails() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(verdict(&policy, status: 500, error("InternalError", status: 500)), .retryAfter(0.2))
        XCTAssertEqual(verdict(&policy, status: 503, error("SlowDown", status: 503)), .retryAfter(0.4))
        XCTAssertEqual(verdict(&policy, status: 503, error("ServiceUnavailable", status: 503)), .retryAfter(0.8))
        XCTAssertEqual(verdict(&policy, status: 500, error("InternalError", status: 500)), .fail)
    }

    func testThatAnErrorInsideA200IsRetriedWhenItIsTheServers() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(verdict(&policy, status: 200, error("InternalError", status: 200)), .retryAfter(0.2))
        var other = S3RetryPolicy()
        XCTAssertEqual(verdict(&other, status: 200, error("NoSuchKey", status: 200)), .fail)
    }

    func testThatAWrongRegionIsRetriedOnceInTheRegionTheServiceNames() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(
            verdict(&policy, status: 301, error("PermanentRedirect", status: 301, region: "eu-west-1")),
            .retryInRegion("eu-west-1"))
        XCTAssertEqual(
            verdict(&policy, status: 400, error("AuthorizationHeaderMalformed", status: 400, region: "eu-west-2")), .fail,
            "only once")
    }

    func testThatAHeadsBareWrongRegionStatusIsRetriedByItsHeader() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(
            verdict(&policy, status: 301, error("PermanentRedirect", status: 301, region: "ap-south-1")),
            .retryInRegion("ap-south-1"))
        var bare = S3RetryPolicy()
        XCTAssertEqual(verdict(&bare, status: 400, error("BadRequest", status: 400, region: "eu-north-1")), .retryInRegion("eu-north-1"))
    }

    func testThatTheSameRegionIsNotRetried() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(
            verdict(&policy, status: 400, error("AuthorizationHeaderMalformed", status: 400, region: "us-east-1")), .fail)
    }

    func testThatASkewedClockIsRetriedOnceOnTheServicesClock() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(
            verdict(&policy, status: 403, error("RequestTimeTooSkewed", status: 403, serverTime: "2023-11-14T23:13:20Z")),
            .retryWithClockOffset(3600), "the service's ServerTime is an hour ahead of ours")
        XCTAssertEqual(
            verdict(&policy, status: 403, error("RequestTimeTooSkewed", status: 403, serverTime: "2023-11-14T23:13:20Z")),
            .fail, "only once")
    }

    func testThatASkewWithoutServerTimeUsesTheDateHeader() {
        var policy = S3RetryPolicy()
        XCTAssertEqual(
            verdict(
                &policy, status: 403, error("RequestTimeTooSkewed", status: 403),
                serverDate: now.addingTimeInterval(3600)),
            .retryWithClockOffset(3600))
        var blind = S3RetryPolicy()
        XCTAssertEqual(verdict(&blind, status: 403, error("RequestTimeTooSkewed", status: 403)), .fail, "no clock to use")
    }
}
