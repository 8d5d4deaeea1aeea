import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// The S3 signers against a second implementation, botocore: the same requests signed by both
/// must carry the same `Authorization` header, and presigned URLs must be the same URL.
///
/// botocore must be importable (`scripts/setup.sh --tests` installs it); when it is not, these
/// tests fail saying so rather than skip.
final class S3SignatureBotocoreTests: XCTestCase {
    /// The generator's seed: the same 200 requests on every run, so a failure can be run again.
    private static let seed: UInt64 = 0x5334_5349_4756_34

    func testThatTwoHundredRandomRequestsSignAsBotocoreSignsThem() throws {
        var random = SeededGenerator(seed: Self.seed)
        let requests = (0..<200).map { RandomS3Request.make($0, using: &random) }
        let directory = try makeTemporaryDirectory("s3-botocore")
        var bodies = SeededGenerator(seed: Self.seed ^ 0xB0D7)
        var bodyPaths: [String?] = []
        for (index, request) in requests.enumerated() {
            guard request.bodySize > 0 else {
                bodyPaths.append(nil)
                continue
            }
            let bytes = (0..<request.bodySize).map { _ in UInt8.random(in: 0...255, using: &bodies) }
            bodyPaths.append(try directory.writeFile("body-\(index)", Data(bytes)))
        }

        let answers = try BotocoreSigner.sign(
            zip(requests, bodyPaths).map { request, bodyPath in
                BotocoreSigner.Request(
                    kind: request.isPresigned ? "presign" : "sign", method: request.method, url: request.botocoreURL,
                    params: request.parameters.map { [$0.name, $0.value ?? ""] },
                    headers: request.headers.map { [$0.name, $0.value] }, bodyPath: bodyPath,
                    unsigned: request.isUnsigned, accessKey: request.accessKey, secretKey: request.secretAccessKey,
                    token: request.sessionToken, region: request.region, timestamp: AWSTimestamp(request.date).dateTime,
                    expires: request.expiresIn)
            }, in: directory)

        var mismatches: [String] = []
        var presignedCount = 0
        for (index, (request, answer)) in zip(requests, answers).enumerated() {
            let url = try XCTUnwrap(request.courierURL, "request \(index) has no URL: \(request)")
            let signer = AWSSignatureV4(
                accessKey: request.accessKey, secretAccessKey: request.secretAccessKey,
                sessionToken: request.sessionToken, region: request.region)
            if request.isPresigned {
                presignedCount += 1
                let presigned = signer.presign(
                    method: request.method, url: url, date: request.date, expiresIn: TimeInterval(request.expiresIn))
                if presigned.absoluteString != answer.url {
                    mismatches.append(
                        "#\(index) presign \(url.absoluteString)\n  Courier:  \(presigned.absoluteString)\n"
                            + "  botocore: \(answer.url ?? "nothing")")
                }
                continue
            }
            // File bodies are hashed from disk in chunks, as S3Request will hash them.
            let payloadHash =
                request.isUnsigned
                ? AWSSignatureV4.unsignedPayload
                : try bodyPaths[index].map { try SHA256Hasher.hexDigest(ofFileAtPath: $0) }
                    ?? AWSSignatureV4.emptyPayloadHash
            let (headers, computation) = signer.signing(
                method: request.method, url: url, headers: HTTPHeaders(request.headers.map { ($0.name, $0.value) }),
                payloadHash: payloadHash, date: request.date)
            if headers["Authorization"] != answer.authorization || headers["x-amz-date"] != answer.amazonDate
                || headers["x-amz-content-sha256"] != answer.contentSHA256
            {
                mismatches.append(
                    "#\(index) \(request.method) \(url.absoluteString) (\(request.spelling))\n"
                        + "  Courier:  \(headers["Authorization"] ?? "nothing")\n"
                        + "  botocore: \(answer.authorization ?? "nothing")\n  Courier's canonical request:\n"
                        + computation.canonicalRequest)
            }
        }
        XCTAssertEqual(presignedCount, 50)
        // The seed's requests cover what they are meant to (a changed generator could lose some).
        XCTAssertGreaterThanOrEqual(requests.filter { $0.bodySize > 1_000_000 }.count, 3, "big bodies")
        XCTAssertGreaterThanOrEqual(requests.filter { !$0.isPresigned && $0.bodySize == 0 }.count, 50, "empty bodies")
        XCTAssertGreaterThanOrEqual(requests.filter(\.isUnsigned).count, 5, "unsigned payloads")
        XCTAssertGreaterThanOrEqual(requests.filter { $0.sessionToken != nil }.count, 40, "session tokens")
        XCTAssertGreaterThanOrEqual(requests.filter { $0.port == 9000 || $0.port == 8443 }.count, 20, "other ports")
        for spelling in RandomS3Request.URLSpelling.allCases {
            XCTAssertGreaterThanOrEqual(requests.filter { $0.spelling == spelling }.count, 20, "\(spelling)")
        }
        for character in [" ", "+", "@", "=", "?", "~", "%", "é", "日本"] {
            XCTAssertGreaterThanOrEqual(requests.filter { $0.key.contains(character) }.count, 10, character)
        }
        XCTAssertTrue(
            mismatches.isEmpty,
            "\(mismatches.count) of 200 differ from botocore:\n" + mismatches.prefix(5).joined(separator: "\n\n"))
    }

    /// ASI sorted `x-amz-*` headers by value, so an ACL with a storage class signed as
    /// `x-amz-storage-class` then `x-amz-acl` ("REDUCED…" sorts before "public…") and S3 refused it
    /// (pokeb/asi-http-request#74). Sorted by name, the signature is botocore's.
    func testThatSigV2SortsAmazonHeadersByNameAsBotocoreDoes() throws {
        let signer = AWSSignatureV2(
            accessKey: "0PN5J17HBGZHT7JJ3X82", secretAccessKey: "uV3F3YluFJax1cknvbcGwgjvx4QpvB+leU8dUj2o")
        let url = try XCTUnwrap(URL(string: "https://johnsmith.s3.amazonaws.com/photos/puppy.jpg"))
        let date = "Tue, 27 Mar 2007 21:15:45 +0000"
        let headers: HTTPHeaders = [
            "Content-Type": "image/jpeg", "Date": date, "x-amz-storage-class": "REDUCED_REDUNDANCY",
            "x-amz-acl": "public-read",
        ]
        let resource = AWSSignatureV2.canonicalizedResource(bucket: "johnsmith", url: url)
        XCTAssertEqual(
            signer.stringToSign(method: "PUT", resource: resource, headers: headers),
            "PUT\n\nimage/jpeg\n\(date)\nx-amz-acl:public-read\nx-amz-storage-class:REDUCED_REDUNDANCY\n"
                + "/johnsmith/photos/puppy.jpg")
        let answers = try BotocoreSigner.sign(
            [
                BotocoreSigner.Request(
                    kind: "sigv2", method: "PUT", url: url.absoluteString,
                    headers: headers.map { [$0.name, $0.value] }, accessKey: signer.accessKey,
                    secretKey: signer.secretAccessKey, authPath: "/johnsmith/photos/puppy.jpg", date: date)
            ], in: try makeTemporaryDirectory("s3-botocore"))
        XCTAssertEqual(
            signer.authorization(method: "PUT", resource: resource, headers: headers), answers.first?.authorization)
    }

    func testThatSigV2MatchesBotocoreOnSubresourcesMetadataAndPathStyle() throws {
        var random = SeededGenerator(seed: Self.seed ^ 0x5162)
        func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &random)] }
        let signer = AWSSignatureV2(
            accessKey: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
        let queries = [
            "", "?acl", "?acl=", "?versionId=3%2F4&acl", "?uploadId=a%20b&partNumber=2", "?prefix=photos&max-keys=50",
            "?response-content-type=text%2Fplain&response-cache-control=no-cache", "?uploads&prefix=x",
            "?tagging&x-id=1",
        ]
        var cases: [(url: URL, bucket: String?, method: String, headers: HTTPHeaders)] = []
        for index in 0..<40 {
            let isPathStyle = index % 2 == 0
            let key = pick(["photos/puppy.jpg", "a%20b/c%2Bd", "%C3%A9t%C3%A9", "dir/", ""])
            let host = isPathStyle ? "s3.example.com:9000" : "johnsmith.s3.amazonaws.com"
            let path = isPathStyle ? "/johnsmith/" + key : "/" + key
            let url = try XCTUnwrap(URL(string: "http://\(host)\(path)\(pick(queries))"))
            var headers: HTTPHeaders = ["Date": "Tue, 27 Mar 2007 19:36:42 +0000"]
            for name in ["x-amz-acl", "X-Amz-Meta-Author", "x-amz-storage-class", "Content-Type", "Content-MD5"]
            where Bool.random(using: &random) {
                headers[name] = pick([
                    "private", "  padded value ", "REDUCED_REDUNDANCY", "image/jpeg", "1B2M2Y8AsgTpgAmY7PhCfg==",
                ])
            }
            cases.append((url, isPathStyle ? nil : "johnsmith", pick(["GET", "PUT", "DELETE", "HEAD"]), headers))
        }
        let answers = try BotocoreSigner.sign(
            cases.map { item in
                let components = URLComponents(url: item.url, resolvingAgainstBaseURL: true)
                return BotocoreSigner.Request(
                    kind: "sigv2", method: item.method, url: item.url.absoluteString,
                    headers: item.headers.map { [$0.name, $0.value] }, accessKey: signer.accessKey,
                    secretKey: signer.secretAccessKey,
                    authPath: (item.bucket.map { "/" + $0 } ?? "") + (components?.percentEncodedPath ?? ""),
                    date: item.headers["Date"])
            }, in: try makeTemporaryDirectory("s3-botocore"))
        for (item, answer) in zip(cases, answers) {
            let resource = AWSSignatureV2.canonicalizedResource(bucket: item.bucket, url: item.url)
            XCTAssertEqual(
                signer.authorization(method: item.method, resource: resource, headers: item.headers),
                answer.authorization,
                "\(item.method) \(item.url): \(signer.stringToSign(method: item.method, resource: resource, headers: item.headers))"
            )
        }
    }
}
