import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import CourierTestServer

/// The S3 service's signature check against AWS's own worked examples (the SigV4-for-S3 pages'
/// GET with Range, PUT, `?lifecycle`, listing and presigned GET), byte for byte, so it is right
/// independently of Courier's signer; and what it puts on the wire for requests it refuses.
final class S3RouteTests: ServerTestCase {
    private static let exampleCredentials = [
        "AKIAIOSFODNN7EXAMPLE": S3Store.Credential(
            secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", sessionToken: nil)
    ]
    /// 20130524T000000Z, the examples' time.
    private static let exampleTime = Date(timeIntervalSince1970: 1_369_353_600)
    private static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    // MARK: AWS's examples

    func testThatAWSsGetWithARangeExamplePassesAndAnyChangeFails() throws {
        let authorization =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        let headers = exampleHeaders(authorization, ["Range": "bytes=0-9"])
        XCTAssertNil(check("GET", "/test.txt", headers))
        XCTAssertEqual(
            check("GET", "/test.txt", exampleHeaders(authorization, ["Range": "bytes=0-8"])), "SignatureDoesNotMatch")
        XCTAssertEqual(check("GET", "/test.tx", headers), "SignatureDoesNotMatch")
        XCTAssertEqual(check("HEAD", "/test.txt", headers), "SignatureDoesNotMatch")
        XCTAssertEqual(check("GET", "/test.txt", headers, now: Self.exampleTime + 901), "RequestTimeTooSkewed")
        XCTAssertNil(check("GET", "/test.txt", headers, now: Self.exampleTime - 900))
    }

    func testThatAWSsPutExamplePassesWithItsBodyAndNotWithAnother() throws {
        let authorization =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
        let headers = exampleHeaders(
            authorization,
            [
                "Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY",
                "x-amz-content-sha256": "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072",
            ])
        let body = Data("Welcome to Amazon S3.".utf8)
        XCTAssertNil(check("PUT", "/test%24file.text", headers, body: body))
        // S3 decodes the path before encoding it again, so `$` sent bare signs the same.
        XCTAssertNil(check("PUT", "/test$file.text", headers, body: body))
        XCTAssertEqual(
            check("PUT", "/test%24file.text", headers, body: body + Data("!".utf8)), "XAmzContentSHA256Mismatch")
    }

    func testThatAWSsLifecycleAndListingExamplesPass() {
        let lifecycle = exampleHeaders(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                + "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
        XCTAssertNil(check("GET", "/?lifecycle", lifecycle))
        XCTAssertNil(check("GET", "/?lifecycle=", lifecycle))
        let listing = exampleHeaders(
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                + "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
        XCTAssertNil(check("GET", "/?max-keys=2&prefix=J", listing))
        XCTAssertNil(check("GET", "/?prefix=J&max-keys=2", listing), "the query is sorted before signing")
        XCTAssertEqual(check("GET", "/?max-keys=3&prefix=J", listing), "SignatureDoesNotMatch")
    }

    func testThatAWSsPresignedExamplePassesUntilItExpires() {
        let target =
            "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
            + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
        let host = ["Host": "examplebucket.s3.amazonaws.com"]
        XCTAssertNil(check("GET", target, host, now: Self.exampleTime + 86_400))
        XCTAssertEqual(check("GET", target, host, now: Self.exampleTime + 86_401), "AccessDenied")
        XCTAssertEqual(check("GET", target, ["Host": "otherbucket.s3.amazonaws.com"]), "SignatureDoesNotMatch")
        XCTAssertEqual(check("PUT", target, host), "SignatureDoesNotMatch")
    }

    // MARK: On the wire

    func testThatTheServiceAnswersNothingUntilATestSetsItUp() throws {
        let before = try RawHTTPClient(port: server.port).request("GET", "/photos/cat.jpg")
        XCTAssertEqual(before.status, 404)
        XCTAssertEqual(before.text, "no such route")

        server.addS3Credentials(accessKey: "AKID", secretAccessKey: "secret")
        let after = try RawHTTPClient(port: server.port).request("GET", "/photos/cat.jpg")
        XCTAssertEqual(after.status, 403)
        XCTAssertEqual(after.header("Content-Type"), "application/xml")
        XCTAssertTrue(after.text.contains("<Code>AccessDenied</Code>"), after.text)
        let echo = try RawHTTPClient(port: server.port).request("GET", Route.echo.path)
        XCTAssertEqual(echo.status, 200, "routes keep their paths")
    }

    func testThatARefusalIsAnS3ErrorDocumentWithItsRequestIDAndResource() throws {
        server.createS3Bucket("photos")
        let client = try RawHTTPClient(port: server.port)
        let response = try client.request(
            "GET", "/photos/a%20cat.jpg", headers: ["Authorization: AWS AKID:c2lnbmF0dXJl"])
        XCTAssertEqual(response.status, 400)
        let requestID = try XCTUnwrap(response.header("x-amz-request-id"))
        XCTAssertEqual(
            response.text,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>InvalidRequest</Code><Message>The authorization "
                + "mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.</Message>"
                + "<RequestId>\(requestID)</RequestId><Resource>/photos/a%20cat.jpg</Resource></Error>")
        let head = try client.request("HEAD", "/photos/a%20cat.jpg")
        XCTAssertEqual(head.status, 403)
        XCTAssertEqual(head.body, Data())
    }

    func testThatS3URLsEncodeKeysAsSigV4SignsThem() {
        XCTAssertEqual(
            server.s3URL(bucket: "photos", key: "a b/c+d@e/ü~").absoluteString,
            "http://127.0.0.1:\(server.port)/photos/a%20b/c%2Bd%40e/%C3%BC~")
        XCTAssertEqual(server.s3URL(bucket: "photos").absoluteString, "http://127.0.0.1:\(server.port)/photos")
    }

    // MARK: Helpers

    private func exampleHeaders(_ authorization: String, _ extra: [String: String] = [:]) -> [HeaderField] {
        var headers = [
            "Host": "examplebucket.s3.amazonaws.com", "x-amz-date": "20130524T000000Z",
            "x-amz-content-sha256": Self.emptyHash, "Authorization": authorization,
        ]
        headers.merge(extra) { $1 }
        return headers.map { HeaderField(name: $0.key, value: $0.value) }
    }

    private func exampleHeaders(_ extra: [String: String]) -> [HeaderField] {
        extra.map { HeaderField(name: $0.key, value: $0.value) }
    }

    /// The error code the check answers `method target` with, or nil when it passes.
    private func check(
        _ method: String, _ target: String, _ headers: [HeaderField], body: Data = Data(), now: Date = exampleTime
    ) -> String? {
        let call = S3Call(method: method, target: target, headers: headers)
        let context = S3SignatureCheck.Context(
            credentials: Self.exampleCredentials, bucket: nil, now: now, endpoint: "127.0.0.1")
        do {
            try S3SignatureCheck.verify(call, headers: headers, body: body, context: context)
            return nil
        } catch {
            return error.code
        }
    }

    private func check(
        _ method: String, _ target: String, _ headers: [String: String], now: Date = exampleTime
    ) -> String? {
        check(method, target, exampleHeaders(headers), now: now)
    }
}
