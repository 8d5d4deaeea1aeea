import Foundation
import XCTest

@testable import Courier

/// AWS's five worked examples of Signature Version 4 for S3, byte for byte.
///
/// Sources: the examples section of "Signature Calculations for the Authorization Header:
/// Transferring Payload in a Single Chunk (AWS Signature Version 4)",
/// https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html (GET Object,
/// PUT Object, GET Bucket Lifecycle, Get Bucket (List Objects)), and "Authenticating Requests:
/// Using Query Parameters (AWS Signature Version 4)",
/// https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html (the presigned
/// GET). All use AWS's example credentials, examplebucket, us-east-1 and 20130524T000000Z.
///
/// AWS's page writes the Authorization header with bare commas between its parts; Courier writes
/// ", " as botocore and AWS's own overview page do (the service accepts both), so the header is
/// compared with that one difference undone and is otherwise byte for byte.
final class S3SignatureV4ExampleTests: XCTestCase {
    private let signer = AWSSignatureV4(
        accessKey: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        region: "us-east-1")
    /// 20130524T000000Z.
    private let date = Date(timeIntervalSince1970: 1_369_353_600)

    private func assertAuthorization(
        _ headers: HTTPHeaders, equalsAWSs expected: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let authorization = headers["Authorization"] ?? ""
        XCTAssertTrue(authorization.contains(", SignedHeaders="), authorization, file: file, line: line)
        XCTAssertEqual(authorization.replacingOccurrences(of: ", ", with: ","), expected, file: file, line: line)
    }

    func testThatAGetWithARangeMatchesAWSsExample() throws {
        let url = try XCTUnwrap(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let (headers, computation) = signer.signing(
            method: "GET", url: url, headers: ["Range": "bytes=0-9"], payloadHash: AWSSignatureV4.emptyPayloadHash,
            date: date)
        // The page's canonical request and string to sign, then its signature.
        XCTAssertEqual(
            computation.canonicalRequest,
            """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        XCTAssertEqual(
            computation.stringToSign,
            """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        assertAuthorization(
            headers,
            equalsAWSs: "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        XCTAssertEqual(headers["Range"], "bytes=0-9")
        XCTAssertEqual(headers["x-amz-date"], "20130524T000000Z")
        XCTAssertEqual(headers["x-amz-content-sha256"], AWSSignatureV4.emptyPayloadHash)
        XCTAssertNil(headers["x-amz-security-token"])
    }

    func testThatAPutWithAStorageClassAndADateMatchesAWSsExample() throws {
        let payloadHash = Digests.hex(Digests.sha256("Welcome to Amazon S3."))
        XCTAssertEqual(payloadHash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let expected =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,"
            + "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd"
        // The key is test$file.text: a URL may carry the `$` as it is or as %24; both sign as %24.
        for spelling in ["test$file.text", "test%24file.text"] {
            let url = try XCTUnwrap(URL(string: "https://examplebucket.s3.amazonaws.com/" + spelling))
            let (headers, computation) = signer.signing(
                method: "PUT", url: url,
                headers: ["Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"],
                payloadHash: payloadHash, date: date)
            XCTAssertEqual(
                computation.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[1],
                "/test%24file.text")
            assertAuthorization(headers, equalsAWSs: expected)
            XCTAssertEqual(headers["Date"], "Fri, 24 May 2013 00:00:00 GMT")
            XCTAssertEqual(headers["x-amz-content-sha256"], payloadHash)
        }
    }

    func testThatAGetOfTheLifecycleSubresourceMatchesAWSsExample() throws {
        let url = try XCTUnwrap(URL(string: "https://examplebucket.s3.amazonaws.com/?lifecycle"))
        let (headers, computation) = signer.signing(
            method: "GET", url: url, headers: [:], payloadHash: AWSSignatureV4.emptyPayloadHash, date: date)
        // The bare parameter is signed with an empty value.
        XCTAssertEqual(
            computation.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false)[2], "lifecycle=")
        assertAuthorization(
            headers,
            equalsAWSs: "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
                + "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    func testThatAListWithMaxKeysAndAPrefixMatchesAWSsExample() throws {
        let expected =
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"
            + "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"
        // The query is signed sorted, whatever order the URL has it in.
        for query in ["max-keys=2&prefix=J", "prefix=J&max-keys=2"] {
            let url = try XCTUnwrap(URL(string: "https://examplebucket.s3.amazonaws.com/?" + query))
            let headers = signer.sign(
                method: "GET", url: url, headers: [:], payloadHash: AWSSignatureV4.emptyPayloadHash, date: date)
            assertAuthorization(headers, equalsAWSs: expected)
        }
    }

    func testThatAPresignedGetMatchesAWSsExample() throws {
        let url = try XCTUnwrap(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let (presigned, computation) = signer.presigning(method: "GET", url: url, date: date, expiresIn: 86400)
        XCTAssertEqual(
            computation.canonicalRequest,
            """
            GET
            /test.txt
            X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host
            host:examplebucket.s3.amazonaws.com

            host
            UNSIGNED-PAYLOAD
            """)
        XCTAssertEqual(
            computation.stringToSign.split(separator: "\n").last,
            "3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04")
        XCTAssertEqual(
            presigned.absoluteString,
            "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }
}
