import Foundation
import XCTest

@testable import Courier

/// Signature Version 2 against ASIHTTPRequest's five vectors (ASIS3RequestTests.m,
/// `testAuthenticationHeaderGeneration`, themselves from the 2006-03-01 S3 developer guide's
/// examples). None of them has an `x-amz-*` header, so ASI's sort-by-value bug
/// (pokeb/asi-http-request#74) changes none of their answers: they are used as ASI has them.
/// The bug's own case is `S3SignatureBotocoreTests.testThatSigV2SortsAmazonHeadersByNameAsBotocoreDoes`.
final class S3SignatureV2Tests: XCTestCase {
    private let signer = AWSSignatureV2(
        accessKey: "0PN5J17HBGZHT7JJ3X82", secretAccessKey: "uV3F3YluFJax1cknvbcGwgjvx4QpvB+leU8dUj2o")

    private func authorization(
        _ method: String, _ url: String, bucket: String?, date: String, contentType: String? = nil
    ) throws -> String {
        var headers: HTTPHeaders = ["Date": date]
        if let contentType { headers["Content-Type"] = contentType }
        let url = try XCTUnwrap(URL(string: url))
        return signer.authorization(
            method: method, resource: AWSSignatureV2.canonicalizedResource(bucket: bucket, url: url), headers: headers)
    }

    func testThatListingAllBucketsMatchesASIsVector() throws {
        XCTAssertEqual(
            try authorization("GET", "https://s3.amazonaws.com/", bucket: nil, date: "Wed, 28 Mar 2007 01:29:59 +0000"),
            "AWS 0PN5J17HBGZHT7JJ3X82:Db+gepJSUbZKwpx1FR0DLtEYoZA=")
    }

    func testThatAGetOfAnObjectMatchesASIsVector() throws {
        XCTAssertEqual(
            try authorization(
                "GET", "https://johnsmith.s3.amazonaws.com/photos/puppy.jpg", bucket: "johnsmith",
                date: "Tue, 27 Mar 2007 19:36:42 +0000"),
            "AWS 0PN5J17HBGZHT7JJ3X82:xXjDGYUmKxnwqr5KXNPGldn5LbA=")
    }

    func testThatAPutOfAnObjectMatchesASIsVector() throws {
        XCTAssertEqual(
            try authorization(
                "PUT", "https://johnsmith.s3.amazonaws.com/photos/puppy.jpg", bucket: "johnsmith",
                date: "Tue, 27 Mar 2007 21:15:45 +0000", contentType: "image/jpeg"),
            "AWS 0PN5J17HBGZHT7JJ3X82:hcicpDDvL9SsO6AkvxqmIWkmOuQ=")
    }

    func testThatAListWithAPrefixAMarkerAndMaxKeysMatchesASIsVector() throws {
        // The listing's parameters are no sub-resources: the resource is the bucket alone.
        let url = "https://johnsmith.s3.amazonaws.com/?prefix=photos&max-keys=50&marker=puppy"
        XCTAssertEqual(
            AWSSignatureV2.canonicalizedResource(bucket: "johnsmith", url: try XCTUnwrap(URL(string: url))),
            "/johnsmith/")
        XCTAssertEqual(
            try authorization("GET", url, bucket: "johnsmith", date: "Tue, 27 Mar 2007 19:42:41 +0000"),
            "AWS 0PN5J17HBGZHT7JJ3X82:jsRt/rhG+Vtp88HrYL706QhE4w4=")
    }

    func testThatAGetOfTheACLMatchesASIsVector() throws {
        XCTAssertEqual(
            try authorization(
                "GET", "https://johnsmith.s3.amazonaws.com/?acl", bucket: "johnsmith",
                date: "Tue, 27 Mar 2007 19:44:46 +0000"),
            "AWS 0PN5J17HBGZHT7JJ3X82:thdUi9VAkzhkniLj96JIrOPGi0g=")
    }

    func testThatAnAmazonDateEmptiesTheDateLine() throws {
        let url = try XCTUnwrap(URL(string: "https://johnsmith.s3.amazonaws.com/photos/puppy.jpg"))
        let resource = AWSSignatureV2.canonicalizedResource(bucket: "johnsmith", url: url)
        XCTAssertEqual(
            signer.stringToSign(
                method: "DELETE", resource: resource,
                headers: ["Date": "Tue, 27 Mar 2007 21:20:27 +0000", "x-amz-date": "Tue, 27 Mar 2007 21:20:26 +0000"]),
            "DELETE\n\n\n\nx-amz-date:Tue, 27 Mar 2007 21:20:26 +0000\n/johnsmith/photos/puppy.jpg")
    }

    func testThatSubresourcesAreSignedSortedAndDecodedAndOtherParametersAreNot() throws {
        let url = try XCTUnwrap(
            URL(string: "http://127.0.0.1:9000/b/k%20ey?uploadId=a%2Fb&prefix=x&partNumber=2&max-keys=3"))
        XCTAssertEqual(
            AWSSignatureV2.canonicalizedResource(bucket: nil, url: url), "/b/k%20ey?partNumber=2&uploadId=a/b")
    }
}
