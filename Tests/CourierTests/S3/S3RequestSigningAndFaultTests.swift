import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

@testable import Courier

/// The S3 request classes against CourierTestServer's S3 service, which checks every SigV4
/// signature as S3 does: what they sign passes, what S3 refuses fails with its code, and each of
/// S3's faults is answered as API.md says (retried, re-signed for the right region or clock, or
/// failed), counted by the requests the service received.
final class S3RequestSigningAndFaultTests: XCTestCase {
    private static let accessKey = "AKIDCOURIERTEST"
    private static let secret = "courier/secret+key"
    private var server: TestServer!

    override func setUpWithError() throws {
        server = try TestServer()
        server.addS3Credentials(accessKey: Self.accessKey, secretAccessKey: Self.secret)
        server.createS3Bucket("photos", region: "eu-west-1")
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    @discardableResult
    private func configured<Request: S3Request>(
        _ request: Request, region: String = "eu-west-1", secret: String = secret
    ) -> Request {
        request.endpoint = server.s3Endpoint
        request.region = region
        request.accessKey = Self.accessKey
        request.secretAccessKey = secret
        return request
    }

    @discardableResult
    private func run<Request: S3Request>(
        _ request: Request, region: String = "eu-west-1", file: StaticString = #filePath, line: UInt = #line
    ) -> Request {
        configured(request, region: region).startSynchronous()
        XCTAssertNil(request.error, "\(request)", file: file, line: line)
        return request
    }

    // MARK: - Signatures the service accepts

    func testThatEveryOperationIsSignedAsS3ChecksIt() {
        let keys = ["plain.txt", "a b+c.txt", "at@sign=eq?q&amp", "dir/sub/é ü.txt", "tilde~_-.", "a//b/./c"]
        for key in keys {
            let put = S3ObjectRequest.put(data: Data("body of \(key)".utf8), bucket: "photos", key: key)
            put.metadata = ["Owner": "ana  maría"]
            put.mimeType = "text/plain"
            put.accessPolicy = .publicRead
            run(put)
            XCTAssertEqual(server.s3Object(bucket: "photos", key: key)?.body, Data("body of \(key)".utf8), key)
            XCTAssertEqual(run(S3ObjectRequest(bucket: "photos", key: key)).responseData(), Data("body of \(key)".utf8), key)
            XCTAssertEqual(run(S3ObjectRequest.head(bucket: "photos", key: key)).metadata, ["owner": "ana  maría"], key)
        }
        let list = S3BucketRequest(bucket: "photos")
        list.prefix = "dir/"
        XCTAssertEqual(run(list).objects.map(\.key), ["dir/sub/é ü.txt"])
        run(S3ObjectRequest.copy(fromBucket: "photos", key: "a b+c.txt", toBucket: "photos", key: "copied"))
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "copied")?.body, Data("body of a b+c.txt".utf8))
        run(S3ObjectRequest.delete(bucket: "photos", key: "copied"))
        XCTAssertNil(server.s3Object(bucket: "photos", key: "copied"))
        XCTAssertEqual(run(S3ServiceRequest()).buckets.map(\.name), ["photos"])
    }

    func testThatAFileBodyIsHashedFromDiskAndAnUnsignedPayloadPassesToo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Data((0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let path = folder.appendingPathComponent("body.bin").path
        try bytes.write(to: URL(fileURLWithPath: path))
        let put = run(S3ObjectRequest.put(file: path, bucket: "photos", key: "file.bin"))
        let sent = try XCTUnwrap(server.s3Requests(bucket: "photos", key: "file.bin").last)
        XCTAssertEqual(sent.header("x-amz-content-sha256"), Digests.hex(Digests.sha256(bytes)), "the file's own hash")
        XCTAssertEqual(put.responseStatusCode, 200)
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "file.bin")?.body, bytes)

        let unsigned = S3ObjectRequest.put(file: path, bucket: "photos", key: "unsigned.bin")
        unsigned.payloadSigning = .unsigned
        run(unsigned)
        XCTAssertEqual(
            server.s3Requests(bucket: "photos", key: "unsigned.bin").last?.header("x-amz-content-sha256"),
            "UNSIGNED-PAYLOAD")
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "unsigned.bin")?.body, bytes)
    }

    func testThatASessionTokenIsSentAndSigned() {
        server.addS3Credentials(accessKey: "ASIATEMPORARY", secretAccessKey: "temporary", sessionToken: "token/with+chars=")
        let put = S3ObjectRequest.put(data: Data("t".utf8), bucket: "photos", key: "t")
        put.endpoint = server.s3Endpoint
        put.region = "eu-west-1"
        put.accessKey = "ASIATEMPORARY"
        put.secretAccessKey = "temporary"
        put.sessionToken = "token/with+chars="
        put.startSynchronous()
        XCTAssertNil(put.error)
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "t").last?.header("x-amz-security-token"), "token/with+chars=")
    }

    func testThatTheSignedHeadersAreTheOnesSentAndNeitherUserAgentNorAcceptEncoding() throws {
        let get = configured(S3ObjectRequest(bucket: "photos", key: "a"))
        get.addRequestHeader("Range", value: "bytes=0-9")
        let signed = try get.signedRequestHeaders()
        let authorization = try XCTUnwrap(signed["Authorization"])
        XCTAssertTrue(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDCOURIERTEST/"), authorization)
        XCTAssertTrue(
            authorization.contains("SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"), authorization)
        XCTAssertEqual(signed["x-amz-content-sha256"], AWSSignatureV4.emptyPayloadHash)
        XCTAssertNil(signed["x-amz-acl"], "an ACL is for what stores an object")
        server.putS3Object(Data("0123456789abcdef".utf8), bucket: "photos", key: "a")
        get.startSynchronous()
        XCTAssertNil(get.error)
        XCTAssertEqual(get.responseString(), "0123456789")
    }

    func testThatAPresignedURLIsFetchedWithoutCredentialsUntilItExpires() throws {
        server.putS3Object(Data("shared".utf8), bucket: "photos", key: "share me.txt")
        let url = try configured(S3ObjectRequest(bucket: "photos", key: "share me.txt")).presignedURL(expiresIn: 60)
        let plain = HTTPRequest(url: url)
        plain.startSynchronous()
        XCTAssertEqual(plain.responseStatusCode, 200)
        XCTAssertEqual(plain.responseString(), "shared")

        let stale = configured(S3ObjectRequest(bucket: "photos", key: "share me.txt"))
        stale.date = Date(timeIntervalSinceNow: -120)
        let expired = HTTPRequest(url: try stale.presignedURL(expiresIn: 60))
        expired.startSynchronous()
        XCTAssertEqual(expired.responseStatusCode, 403)
        XCTAssertTrue(expired.responseString()?.contains("Request has expired") == true, expired.responseString() ?? "")
    }

    func testThatAPresignedURLNeedsCredentials() {
        let request = S3ObjectRequest(bucket: "photos", key: "a")
        request.endpoint = server.s3Endpoint
        let saved = (S3Request.sharedAccessKey, S3Request.sharedSecretAccessKey)
        defer { (S3Request.sharedAccessKey, S3Request.sharedSecretAccessKey) = saved }
        S3Request.sharedAccessKey = nil
        S3Request.sharedSecretAccessKey = nil
        guard S3Environment.accessKey == nil || S3Environment.secretAccessKey == nil else {
            return XCTFail("the test process has AWS credentials in its environment; run it without them")
        }
        XCTAssertThrowsError(try request.presignedURL(expiresIn: 60)) {
            XCTAssertEqual(($0 as? HTTPRequestError)?.type, .internalErrorWhileApplyingCredentials)
        }
    }

    // MARK: - What the service refuses

    func testThatAWrongSecretFailsWithSignatureDoesNotMatchAndIsNotRetried() {
        let get = configured(S3ObjectRequest(bucket: "photos", key: "a"), secret: "not the secret")
        get.startSynchronous()
        XCTAssertEqual(get.error?.type, .serviceError)
        XCTAssertEqual(get.s3Error?.code, "SignatureDoesNotMatch")
        XCTAssertEqual(get.s3Error?.statusCode, 403)
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "a").count, 1)
    }

    func testThatARequestWithoutCredentialsGoesUnsignedAndIsRefused() {
        let get = S3ObjectRequest(bucket: "photos", key: "a")
        get.endpoint = server.s3Endpoint
        get.startSynchronous()
        XCTAssertEqual(get.s3Error?.code, "AccessDenied")
        XCTAssertNil(server.s3Requests(bucket: "photos", key: "a").last?.header("Authorization"))
    }

    // MARK: - S3's faults

    func testThatA500ThenA200IsRetriedAndSucceeds() {
        server.injectS3Fault(.internalError, times: 1, bucket: "photos", key: "flaky", operation: .putObject)
        run(S3ObjectRequest.put(data: Data("ok".utf8), bucket: "photos", key: "flaky"))
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "flaky").count, 2)
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "flaky")?.body, Data("ok".utf8))
    }

    func testThatSlowDownIsRetriedThreeTimesWithBackoffThenFails() {
        server.injectS3Fault(.slowDown, times: 4, bucket: "photos", key: "busy", operation: .getObject)
        let started = Date()
        let get = configured(S3ObjectRequest(bucket: "photos", key: "busy"))
        get.startSynchronous()
        XCTAssertEqual(get.error?.type, .serviceError)
        XCTAssertEqual(get.s3Error?.code, "SlowDown")
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "busy").count, 4, "the first try and three retries")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.2 + 0.4 + 0.8, "a doubling backoff")
    }

    func testThatACancelDuringTheBackoffEndsTheRequestWithNoFurtherTry() {
        server.injectS3Fault(.slowDown, times: 4, bucket: "photos", key: "busy", operation: .getObject)
        let get = configured(S3ObjectRequest(bucket: "photos", key: "busy"))
        get.startAsynchronous()
        let deadline = Date(timeIntervalSinceNow: 5)
        while server.s3Requests(bucket: "photos", key: "busy").isEmpty, Date() < deadline { usleep(5_000) }
        usleep(50_000)  // in the first 0.2 s pause
        get.cancel()
        waitUntil(timeout: 5, message: "the cancelled request finishes") { get.isFinished }
        XCTAssertEqual(get.error?.type, .requestCancelled)
        usleep(400_000)
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "busy").count, 1, "nothing after the cancel")
    }

    func testThatAnErrorInsideA200FailsACopyAndAServerErrorInsideOneIsRetried() {
        server.putS3Object(Data("source".utf8), bucket: "photos", key: "source")
        server.injectS3Fault(
            .errorIn200(code: "AccessDenied", message: "no"), times: 1, bucket: "photos", key: "denied",
            operation: .copyObject)
        let copy = configured(
            S3ObjectRequest.copy(fromBucket: "photos", key: "source", toBucket: "photos", key: "denied"))
        copy.startSynchronous()
        XCTAssertEqual(copy.responseStatusCode, 200)
        XCTAssertEqual(copy.error?.type, .serviceError, "a 200 carrying an <Error> is a failure")
        XCTAssertEqual(copy.s3Error?.code, "AccessDenied")

        server.injectS3Fault(.errorIn200(), times: 1, bucket: "photos", key: "retried", operation: .copyObject)
        run(S3ObjectRequest.copy(fromBucket: "photos", key: "source", toBucket: "photos", key: "retried"))
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "retried").count, 2)
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "retried")?.body, Data("source".utf8))
    }

    func testThatAnObjectWhoseContentIsAnErrorDocumentIsNotAFailure() {
        let document = Data("<Error><Code>NoSuchKey</Code></Error>".utf8)
        server.putS3Object(document, bucket: "photos", key: "error.xml")
        XCTAssertEqual(run(S3ObjectRequest(bucket: "photos", key: "error.xml")).responseData(), document)
    }

    func testThatAWrongRegionIsRetriedOnceSignedForTheBucketsRegion() {
        let get = S3ObjectRequest(bucket: "photos", key: "r")
        server.putS3Object(Data("regional".utf8), bucket: "photos", key: "r")
        run(get, region: "us-east-1")
        XCTAssertEqual(get.responseString(), "regional")
        let sent = server.s3Requests(bucket: "photos", key: "r")
        XCTAssertEqual(sent.count, 2)
        XCTAssertTrue(sent[1].header("Authorization")?.contains("/eu-west-1/s3/aws4_request") == true)
    }

    func testThatAPermanentRedirectWithTheRegionHeaderIsRetriedEvenForAHead() {
        server.createS3Bucket("moved", region: "ap-south-1", wrongRegionStyle: .permanentRedirect)
        server.putS3Object(Data("here".utf8), bucket: "moved", key: "k")
        let head = run(S3ObjectRequest.head(bucket: "moved", key: "k"), region: "eu-west-1")
        XCTAssertEqual(head.responseHeaders["Content-Length"], "4")
        XCTAssertEqual(server.s3Requests(bucket: "moved", key: "k").count, 2)
    }

    func testThatASkewedClockIsRetriedOnceOnTheServicesClock() {
        server.s3ClockOffset = 3600
        server.putS3Object(Data("late".utf8), bucket: "photos", key: "clock")
        XCTAssertEqual(run(S3ObjectRequest(bucket: "photos", key: "clock")).responseString(), "late")
        let sent = server.s3Requests(bucket: "photos", key: "clock")
        XCTAssertEqual(sent.count, 2, "one RequestTimeTooSkewed, then the retry on the service's clock")
        // Its x-amz-date is the service's hour ahead, give or take the seconds the test took.
        let retried = sent[1].header("x-amz-date").flatMap { S3Date.parse(Self.iso8601($0)) }
        XCTAssertEqual(retried?.timeIntervalSinceNow ?? 0, 3600, accuracy: 60)
    }

    /// `20240101T120000Z` as `2024-01-01T12:00:00Z`.
    private static func iso8601(_ basic: String) -> String {
        let c = Array(basic)
        guard c.count == 16 else { return basic }
        return String(c[0..<4]) + "-" + String(c[4..<6]) + "-" + String(c[6..<8]) + "T" + String(c[9..<11]) + ":"
            + String(c[11..<13]) + ":" + String(c[13..<15]) + "Z"
    }

    // MARK: - Checksums

    func testThatNoChecksumIsSentUnlessAsked() throws {
        run(S3ObjectRequest.put(data: Data("123456789".utf8), bucket: "photos", key: "plain"))
        let plain = try XCTUnwrap(server.s3Requests(bucket: "photos", key: "plain").last)
        XCTAssertFalse(plain.headers.contains { $0.name.lowercased().hasPrefix("x-amz-checksum") })

        for (algorithm, value) in [
            (S3ChecksumAlgorithm.crc32, "y/Q5Jg=="), (.crc32c, "4waSgw=="),
            (.sha256, Data(Digests.sha256(Data("123456789".utf8))).base64EncodedString()),
        ] {
            let put = S3ObjectRequest.put(data: Data("123456789".utf8), bucket: "photos", key: "sum-\(algorithm)")
            put.checksumAlgorithm = algorithm
            run(put)
            let sent = try XCTUnwrap(server.s3Requests(bucket: "photos", key: "sum-\(algorithm)").last)
            XCTAssertEqual(sent.header("x-amz-checksum-\(algorithm.rawValue)"), value)
            XCTAssertTrue(sent.header("Authorization")?.contains("x-amz-checksum-\(algorithm.rawValue)") == true, "signed")
        }
    }

    // MARK: - Multipart

    func testThatAMultipartUploadRetriesAPartThatGotA500AndCompletesInOrder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("twelve.bin").path
        let bytes = Data((0..<(12 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 13) })
        try bytes.write(to: URL(fileURLWithPath: path))
        // Four 500s for part 2: S3Request's own three retries, then one retry of the part.
        server.injectS3Fault(.internalError, times: 4, bucket: "photos", key: "big", operation: .uploadPart, partNumber: 2)
        let upload = S3MultipartUpload(file: path, bucket: "photos", key: "big")
        upload.partSize = 5 * 1024 * 1024
        let endpoint = server.s3Endpoint
        upload.configure = { request in
            request.endpoint = endpoint
            request.region = "eu-west-1"
            request.accessKey = Self.accessKey
            request.secretAccessKey = Self.secret
        }
        let eTag = try await upload.upload()
        XCTAssertTrue(eTag.hasSuffix("-3"), eTag)
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "big")?.body, bytes)
        XCTAssertEqual(server.s3FaultsRemaining, 0)
        XCTAssertEqual(server.s3MultipartUploads(bucket: "photos"), [])
    }

    func testThatAMultipartUploadWhosePartKeepsFailingIsAborted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("ten.bin").path
        try Data(count: 10 * 1024 * 1024 + 1).write(to: URL(fileURLWithPath: path))
        server.injectS3Fault(
            S3Fault(status: 403, code: "AccessDenied", message: "no parts for you"), times: 100, bucket: "photos",
            key: "denied", operation: .uploadPart)
        let upload = S3MultipartUpload(file: path, bucket: "photos", key: "denied")
        upload.partSize = 5 * 1024 * 1024
        let endpoint = server.s3Endpoint
        upload.configure = { request in
            request.endpoint = endpoint
            request.region = "eu-west-1"
            request.accessKey = Self.accessKey
            request.secretAccessKey = Self.secret
        }
        do {
            _ = try await upload.upload()
            XCTFail("the upload should fail")
        } catch {
            XCTAssertEqual(error.type, .serviceError)
            XCTAssertEqual((error.underlyingError as? S3Error)?.code, "AccessDenied")
        }
        XCTAssertNotNil(upload.uploadID)
        XCTAssertEqual(server.s3MultipartUploads(bucket: "photos"), [], "aborted on the service")
        XCTAssertNil(server.s3Object(bucket: "photos", key: "denied"))
    }
}
