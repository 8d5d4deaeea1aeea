@testable import Courier
import Foundation
import XCTest

/// Where an S3 request goes, socket-free: AWS's endpoints, custom ones, each addressing style and
/// how keys are encoded.
final class S3AddressingTests: XCTestCase {
    private func url(
        endpoint: String? = nil, region: String = "eu-west-1", scheme: String = "https",
        style: S3AddressingStyle = .automatic, bucket: String?, key: String? = nil, query: String = ""
    ) throws -> String {
        let addressing = S3Addressing(
            endpoint: endpoint.flatMap(URL.init(string:)), region: region, scheme: scheme, style: style)
        return try addressing.url(bucket: bucket, key: key, query: query).absoluteString
    }

    func testThatAWSIsVirtualHostedForADNSCompatibleBucket() throws {
        XCTAssertEqual(try url(bucket: "photos", key: "2024/cat.jpg"), "https://photos.s3.eu-west-1.amazonaws.com/2024/cat.jpg")
        XCTAssertEqual(try url(bucket: "photos"), "https://photos.s3.eu-west-1.amazonaws.com/")
    }

    func testThatADottedBucketOverHTTPSOrAnUppercaseOneIsPathStyle() throws {
        XCTAssertEqual(try url(bucket: "my.photos", key: "a"), "https://s3.eu-west-1.amazonaws.com/my.photos/a")
        XCTAssertEqual(try url(scheme: "http", bucket: "my.photos", key: "a"), "http://my.photos.s3.eu-west-1.amazonaws.com/a")
        XCTAssertEqual(try url(bucket: "Photos", key: "a"), "https://s3.eu-west-1.amazonaws.com/Photos/a")
    }

    func testThatACustomEndpointIsPathStyleWithItsPortAndPath() throws {
        XCTAssertEqual(
            try url(endpoint: "http://127.0.0.1:9000", bucket: "photos", key: "a.txt"), "http://127.0.0.1:9000/photos/a.txt")
        XCTAssertEqual(
            try url(endpoint: "https://storage.example/s3/", bucket: "photos", key: "a.txt"),
            "https://storage.example/s3/photos/a.txt")
        XCTAssertEqual(try url(endpoint: "http://localhost:9000", bucket: nil), "http://localhost:9000/")
    }

    func testThatTheStyleCanBeForced() throws {
        XCTAssertEqual(
            try url(endpoint: "http://minio.local:9000", style: .virtualHosted, bucket: "photos", key: "a"),
            "http://photos.minio.local:9000/a")
        XCTAssertEqual(try url(style: .path, bucket: "photos", key: "a"), "https://s3.eu-west-1.amazonaws.com/photos/a")
    }

    func testThatAKeyIsEncodedAsItIsSignedWithSlashesKept() throws {
        XCTAssertEqual(
            try url(style: .path, bucket: "b", key: "a b+c@d=e?&/é~_-."),
            "https://s3.eu-west-1.amazonaws.com/b/a%20b%2Bc%40d%3De%3F%26/%C3%A9~_-.")
        XCTAssertEqual(try url(style: .path, bucket: "b", key: "a//b/./c"), "https://s3.eu-west-1.amazonaws.com/b/a//b/./c")
    }

    func testThatTheQueryIsKept() throws {
        XCTAssertEqual(
            try url(style: .path, bucket: "b", query: "list-type=2&prefix=a%2Fb"),
            "https://s3.eu-west-1.amazonaws.com/b?list-type=2&prefix=a%2Fb")
    }

    func testThatAnEmptyBucketOrAnEndpointWithoutAHostIsRefused() {
        XCTAssertThrowsError(try url(bucket: "")) { XCTAssertEqual(($0 as? HTTPRequestError)?.type, .unableToCreateRequest) }
        XCTAssertThrowsError(try url(endpoint: "file:///tmp", bucket: "b")) {
            XCTAssertEqual(($0 as? HTTPRequestError)?.type, .unableToCreateRequest)
        }
    }

    func testThatDNSCompatibilityFollowsS3sRules() {
        for name in ["abc", "my-bucket", "my.bucket.name", String(repeating: "a", count: 63)] {
            XCTAssertTrue(S3Addressing.isDNSCompatible(name), name)
        }
        for name in ["ab", "-abc", "abc-", "a..b", "ABC", "a_b", "192.168.1.1", String(repeating: "a", count: 64)] {
            XCTAssertFalse(S3Addressing.isDNSCompatible(name), name)
        }
    }
}
