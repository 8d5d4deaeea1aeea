import CourierTestServer
import Foundation
import XCTest

@testable import Courier

/// CourierTestServer's S3 service, the one the S3 client's tests check signatures and faults
/// against, driven with plain `HTTPRequest`s signed by `AWSSignatureV4`: a correct request
/// passes, and each thing S3 refuses is refused with S3's status and code.
final class S3TestServerTests: XCTestCase {
    private static let accessKey = "AKIDCOURIERTEST"
    private static let secret = "courier/secret+key"
    private var server: TestServer!
    private let signer = AWSSignatureV4(accessKey: accessKey, secretAccessKey: secret, region: "eu-west-1")

    override func setUpWithError() throws {
        server = try TestServer()
        server.addS3Credentials(accessKey: Self.accessKey, secretAccessKey: Self.secret)
        server.createS3Bucket("photos", region: "eu-west-1")
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    // MARK: Requests that pass

    func testThatASignedPutGetHeadListAndDeleteWorkLikeS3() throws {
        let body = Data("a cat, photographed".utf8)
        let url = server.s3URL(bucket: "photos", key: "2026/cat.jpg")
        let put = send("PUT", url, body: body, headers: ["Content-Type": "image/jpeg", "x-amz-meta-Camera": "X100"])
        XCTAssertEqual(put.responseStatusCode, 200, put.responseString() ?? "")
        // md5sum's answer for the body.
        XCTAssertEqual(put.responseHeaders["ETag"], "\"4f3b5b547e24581a53ce7267984f643a\"")

        let get = send("GET", url)
        XCTAssertEqual(get.responseStatusCode, 200, get.responseString() ?? "")
        XCTAssertEqual(get.responseData(), body)
        XCTAssertEqual(get.responseHeaders["Content-Type"], "image/jpeg")
        XCTAssertEqual(get.responseHeaders["x-amz-meta-camera"], "X100")
        XCTAssertNotNil(get.responseHeaders["x-amz-request-id"])

        let range = send("GET", url, headers: ["Range": "bytes=2-4"])
        XCTAssertEqual(range.responseStatusCode, 206)
        XCTAssertEqual(range.responseString(), "cat")
        XCTAssertEqual(range.responseHeaders["Content-Range"], "bytes 2-4/\(body.count)")

        let head = send("HEAD", url)
        XCTAssertEqual(head.responseStatusCode, 200)
        XCTAssertEqual(head.responseHeaders["Content-Length"], String(body.count))

        let list = send("GET", server.s3URL(bucket: "photos").appendingQuery("list-type=2&prefix=2026%2F"))
        XCTAssertEqual(list.responseStatusCode, 200, list.responseString() ?? "")
        XCTAssertTrue(list.responseString()?.contains("<Key>2026/cat.jpg</Key>") == true, list.responseString() ?? "")
        XCTAssertTrue(list.responseString()?.contains("<Size>\(body.count)</Size>") == true)

        XCTAssertEqual(send("DELETE", url).responseStatusCode, 204)
        let gone = send("GET", url)
        XCTAssertEqual(gone.responseStatusCode, 404)
        XCTAssertEqual(errorCode(gone), "NoSuchKey")
        XCTAssertEqual(errorCode(send("GET", server.s3URL(bucket: "nobody", key: "x"))), "NoSuchBucket")
    }

    func testThatAListingPagesWithContinuationTokensAndGroupsCommonPrefixes() throws {
        for key in ["a/1", "a/2", "b", "c/1", "d", "e"] { server.putS3Object(Data(), bucket: "photos", key: key) }
        var keys: [String] = []
        var pages = 0
        var query = "list-type=2&max-keys=2"
        while true {
            let page = send("GET", server.s3URL(bucket: "photos").appendingQuery(query))
            XCTAssertEqual(page.responseStatusCode, 200, page.responseString() ?? "")
            pages += 1
            keys += xmlValues("Key", in: page)
            guard let token = xmlValue("NextContinuationToken", in: page), pages < 10 else { break }
            XCTAssertEqual(xmlValue("IsTruncated", in: page), "true")
            query =
                "continuation-token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                + "&list-type=2&max-keys=2"
        }
        XCTAssertEqual(pages, 3)
        XCTAssertEqual(keys, ["a/1", "a/2", "b", "c/1", "d", "e"])

        let grouped = send("GET", server.s3URL(bucket: "photos").appendingQuery("delimiter=%2F&list-type=2"))
        XCTAssertEqual(xmlValues("Key", in: grouped), ["b", "d", "e"])
        XCTAssertEqual(xmlValues("Prefix", in: grouped), ["", "a/", "c/"], grouped.responseString() ?? "")

        server.putS3Object(Data(), bucket: "photos", key: "f g+h&i")
        let encoded = send(
            "GET", server.s3URL(bucket: "photos").appendingQuery("encoding-type=url&list-type=2&prefix=f"))
        XCTAssertEqual(
            xmlValues("Key", in: encoded), ["f+g%2Bh%26i"], "encoding-type=url: a space as +, as S3 sends it")
    }

    func testThatBucketsAreCreatedInTheirLocationListedAndDeletedOnlyWhenEmpty() {
        let configuration =
            "<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint>"
            + "</CreateBucketConfiguration>"
        let created = send("PUT", server.s3URL(bucket: "fresh"), body: Data(configuration.utf8))
        XCTAssertEqual(created.responseStatusCode, 200, created.responseString() ?? "")
        XCTAssertEqual(errorCode(send("PUT", server.s3URL(bucket: "fresh"))), "BucketAlreadyOwnedByYou")
        let head = send("HEAD", server.s3URL(bucket: "fresh"))
        XCTAssertEqual(head.responseHeaders["x-amz-bucket-region"], "eu-west-1")
        XCTAssertEqual(
            xmlValues("Name", in: send("GET", server.s3Endpoint.appendingPathComponent(""))), ["fresh", "photos"])

        server.putS3Object(Data("x".utf8), bucket: "fresh", key: "k")
        XCTAssertEqual(errorCode(send("DELETE", server.s3URL(bucket: "fresh"))), "BucketNotEmpty")
        XCTAssertEqual(send("DELETE", server.s3URL(bucket: "fresh", key: "k")).responseStatusCode, 204)
        XCTAssertEqual(send("DELETE", server.s3URL(bucket: "fresh")).responseStatusCode, 204)
        XCTAssertEqual(server.s3Buckets, ["photos"])
    }

    func testThatKeysWithSpacesPlusSignsAndNonASCIIAreSignedAndStoredAsTheyAre() {
        for key in ["a b+c@d=e?f&g", "naïve/日本語.txt", "a//b", "~tilde;semi,comma", "%2F is not a slash"] {
            let url = server.s3URL(bucket: "photos", key: key)
            let put = send("PUT", url, body: Data(key.utf8))
            XCTAssertEqual(put.responseStatusCode, 200, "\(key): \(put.responseString() ?? "")")
            XCTAssertEqual(server.s3Object(bucket: "photos", key: key)?.body, Data(key.utf8), key)
        }
    }

    func testThatAnUnsignedPayloadPassesWithAnyBody() {
        let url = server.s3URL(bucket: "photos", key: "unsigned")
        let request = send("PUT", url, body: Data("anything".utf8), payloadHash: AWSSignatureV4.unsignedPayload)
        XCTAssertEqual(request.responseStatusCode, 200, request.responseString() ?? "")
    }

    func testThatTemporaryCredentialsNeedTheirSessionToken() {
        server.addS3Credentials(accessKey: "ASIATEMP", secretAccessKey: "temporary", sessionToken: "token/with+signs")
        let url = server.s3URL(bucket: "photos", key: "t")
        let withToken = AWSSignatureV4(
            accessKey: "ASIATEMP", secretAccessKey: "temporary", sessionToken: "token/with+signs", region: "eu-west-1")
        XCTAssertEqual(send("PUT", url, body: Data(), signer: withToken).responseStatusCode, 200)
        let presigned = withToken.presign(method: "GET", url: url, date: Date(), expiresIn: 60)
        XCTAssertEqual(send("GET", presigned, signed: false).responseStatusCode, 200)

        let without = AWSSignatureV4(accessKey: "ASIATEMP", secretAccessKey: "temporary", region: "eu-west-1")
        let refused = send("PUT", url, body: Data(), signer: without)
        XCTAssertEqual(refused.responseStatusCode, 403)
        XCTAssertEqual(errorCode(refused), "InvalidToken")
    }

    // MARK: Requests that are refused

    func testThatAWrongSecretGetsSignatureDoesNotMatch() {
        let wrong = AWSSignatureV4(accessKey: Self.accessKey, secretAccessKey: "not the secret", region: "eu-west-1")
        let request = send("PUT", server.s3URL(bucket: "photos", key: "k"), body: Data("x".utf8), signer: wrong)
        XCTAssertEqual(request.responseStatusCode, 403)
        XCTAssertEqual(errorCode(request), "SignatureDoesNotMatch")
        XCTAssertTrue(request.responseString()?.contains("<StringToSign>AWS4-HMAC-SHA256\n") == true)
        XCTAssertTrue(request.responseString()?.contains("<Resource>/photos/k</Resource>") == true)
        XCTAssertNil(server.s3Object(bucket: "photos", key: "k"))
    }

    func testThatAChangedHeaderPathOrQueryGetsSignatureDoesNotMatch() {
        let url = server.s3URL(bucket: "photos", key: "k")
        server.putS3Object(Data("x".utf8), bucket: "photos", key: "k")
        var headers = signer.sign(
            method: "GET", url: url, headers: ["Range": "bytes=0-0"], payloadHash: AWSSignatureV4.emptyPayloadHash,
            date: Date())
        headers["Range"] = "bytes=0-1"
        XCTAssertEqual(errorCode(sendAsIs("GET", url, headers: headers)), "SignatureDoesNotMatch", "changed header")

        let signedForK = signer.sign(
            method: "GET", url: url, headers: [:], payloadHash: AWSSignatureV4.emptyPayloadHash, date: Date())
        XCTAssertEqual(sendAsIs("GET", url, headers: signedForK).responseStatusCode, 200, "unchanged")
        let otherKey = server.s3URL(bucket: "photos", key: "K")
        XCTAssertEqual(errorCode(sendAsIs("GET", otherKey, headers: signedForK)), "SignatureDoesNotMatch", "path")
        XCTAssertEqual(
            errorCode(sendAsIs("GET", url.appendingQuery("versionId=1"), headers: signedForK)), "SignatureDoesNotMatch",
            "query")
        XCTAssertEqual(errorCode(sendAsIs("DELETE", url, headers: signedForK)), "SignatureDoesNotMatch", "method")
    }

    func testThatAChangedBodyGetsXAmzContentSHA256Mismatch() {
        let url = server.s3URL(bucket: "photos", key: "k")
        let headers = signer.sign(
            method: "PUT", url: url, headers: [:], payloadHash: sha256Hex(Data("signed body".utf8)), date: Date())
        let request = sendAsIs("PUT", url, headers: headers, body: Data("other body".utf8))
        XCTAssertEqual(request.responseStatusCode, 400)
        XCTAssertEqual(errorCode(request), "XAmzContentSHA256Mismatch")
        XCTAssertNil(server.s3Object(bucket: "photos", key: "k"))
    }

    func testThatAnUnknownAccessKeyGetsInvalidAccessKeyId() {
        let stranger = AWSSignatureV4(accessKey: "AKIDSTRANGER", secretAccessKey: Self.secret, region: "eu-west-1")
        let request = send("GET", server.s3URL(bucket: "photos", key: "k"), signer: stranger)
        XCTAssertEqual(request.responseStatusCode, 403)
        XCTAssertEqual(errorCode(request), "InvalidAccessKeyId")
    }

    func testThatAnUnsignedRequestAndAnUnsignedAmzHeaderGetAccessDenied() {
        let url = server.s3URL(bucket: "photos", key: "k")
        let anonymous = send("GET", url, signed: false)
        XCTAssertEqual(anonymous.responseStatusCode, 403)
        XCTAssertEqual(errorCode(anonymous), "AccessDenied")

        var headers = signer.sign(
            method: "PUT", url: url, headers: [:], payloadHash: AWSSignatureV4.emptyPayloadHash, date: Date())
        headers["x-amz-meta-added"] = "after signing"
        let request = sendAsIs("PUT", url, headers: headers)
        XCTAssertEqual(request.responseStatusCode, 403)
        XCTAssertEqual(errorCode(request), "AccessDenied")
        XCTAssertTrue(
            request.responseString()?.contains("<HeadersNotSigned>x-amz-meta-added</HeadersNotSigned>") == true)
    }

    func testThatAPresignedURLWorksUntilItExpiresAndOnlyForWhatItSigned() {
        server.putS3Object(Data("shared".utf8), bucket: "photos", key: "share me.txt")
        let url = server.s3URL(bucket: "photos", key: "share me.txt")
        let fresh = signer.presign(method: "GET", url: url, date: Date(), expiresIn: 60)
        let ok = send("GET", fresh, signed: false)
        XCTAssertEqual(ok.responseStatusCode, 200, ok.responseString() ?? "")
        XCTAssertEqual(ok.responseString(), "shared")

        let expired = signer.presign(method: "GET", url: url, date: Date(timeIntervalSinceNow: -120), expiresIn: 60)
        let late = send("GET", expired, signed: false)
        XCTAssertEqual(late.responseStatusCode, 403)
        XCTAssertEqual(errorCode(late), "AccessDenied")
        XCTAssertTrue(late.responseString()?.contains("<Message>Request has expired</Message>") == true)

        XCTAssertEqual(errorCode(send("PUT", fresh, body: Data("x".utf8), signed: false)), "SignatureDoesNotMatch")
        let tampered = URL(string: fresh.absoluteString.replacingOccurrences(of: "share%20me", with: "share%20you"))!
        XCTAssertEqual(errorCode(send("GET", tampered, signed: false)), "SignatureDoesNotMatch")
        let wrongSecret = AWSSignatureV4(accessKey: Self.accessKey, secretAccessKey: "wrong", region: "eu-west-1")
        let forged = wrongSecret.presign(method: "GET", url: url, date: Date(), expiresIn: 60)
        XCTAssertEqual(errorCode(send("GET", forged, signed: false)), "SignatureDoesNotMatch")
    }

    func testThatASkewedDateGetsRequestTimeTooSkewedWithTheServersClockInItsDateHeader() throws {
        let url = server.s3URL(bucket: "photos", key: "k")
        let slow = send("GET", url, date: Date(timeIntervalSinceNow: -16 * 60))
        XCTAssertEqual(slow.responseStatusCode, 403)
        XCTAssertEqual(errorCode(slow), "RequestTimeTooSkewed")

        server.s3ClockOffset = 3600
        let skewed = send("GET", url)
        XCTAssertEqual(skewed.responseStatusCode, 403)
        XCTAssertEqual(errorCode(skewed), "RequestTimeTooSkewed")
        let serverDate = try XCTUnwrap(skewed.responseHeaders["Date"].flatMap(httpDate))
        XCTAssertEqual(serverDate.timeIntervalSinceNow, 3600, accuracy: 5)
        // The document's clock too, in S3's form for it: to the second, no milliseconds.
        let serverTime = try XCTUnwrap(xmlValue("ServerTime", in: skewed))
        XCTAssertNotNil(
            serverTime.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression), serverTime)
        let formatter = ISO8601DateFormatter()
        XCTAssertEqual(try XCTUnwrap(formatter.date(from: serverTime)).timeIntervalSinceNow, 3600, accuracy: 5)
        // What a client does next: sign with the server's time.
        server.putS3Object(Data(), bucket: "photos", key: "k")
        XCTAssertEqual(send("GET", url, date: serverDate).responseStatusCode, 200)
    }

    func testThatAWrongRegionGetsTheBucketsRegionInEitherOfS3sStyles() {
        let usEast = AWSSignatureV4(accessKey: Self.accessKey, secretAccessKey: Self.secret, region: "us-east-1")
        let malformed = send("GET", server.s3URL(bucket: "photos", key: "k"), signer: usEast)
        XCTAssertEqual(malformed.responseStatusCode, 400)
        XCTAssertEqual(errorCode(malformed), "AuthorizationHeaderMalformed")
        XCTAssertTrue(malformed.responseString()?.contains("<Region>eu-west-1</Region>") == true)
        XCTAssertEqual(malformed.responseHeaders["x-amz-bucket-region"], "eu-west-1")

        let presigned = usEast.presign(
            method: "GET", url: server.s3URL(bucket: "photos", key: "k"), date: Date(), expiresIn: 60)
        XCTAssertEqual(errorCode(send("GET", presigned, signed: false)), "AuthorizationQueryParametersError")

        server.createS3Bucket("archive", region: "ap-southeast-2", wrongRegionStyle: .permanentRedirect)
        let redirected = send("GET", server.s3URL(bucket: "archive", key: "k"), signer: usEast)
        XCTAssertEqual(redirected.responseStatusCode, 301)
        XCTAssertEqual(errorCode(redirected), "PermanentRedirect")
        XCTAssertEqual(redirected.responseHeaders["x-amz-bucket-region"], "ap-southeast-2")
        let right = AWSSignatureV4(accessKey: Self.accessKey, secretAccessKey: Self.secret, region: "ap-southeast-2")
        XCTAssertEqual(send("GET", server.s3URL(bucket: "archive", key: "k"), signer: right).responseStatusCode, 404)
    }

    // MARK: Faults

    func testThatScriptedFaultsAnswerExactlyAsOftenAndInTheOrderScripted() {
        let url = server.s3URL(bucket: "photos", key: "flaky")
        server.injectS3Fault(.internalError, bucket: "photos", key: "flaky", operation: .putObject)
        server.injectS3Fault(.slowDown, times: 2, bucket: "photos", key: "flaky", method: "PUT")
        XCTAssertEqual(server.s3FaultsRemaining, 3)

        let answers = (1...4).map { _ in send("PUT", url, body: Data("x".utf8)) }
        XCTAssertEqual(answers.map(\.responseStatusCode), [500, 503, 503, 200])
        XCTAssertEqual(answers.map(errorCode), ["InternalError", "SlowDown", "SlowDown", nil])
        XCTAssertEqual(server.s3FaultsRemaining, 0)
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "flaky").count, 4)
        XCTAssertEqual(send("GET", url).responseStatusCode, 200, "a fault for PUT leaves GET alone")
    }

    func testThatAFaultCanBeA200CarryingAnErrorDocument() {
        server.putS3Object(Data("original".utf8), bucket: "photos", key: "source")
        server.injectS3Fault(.errorIn200(), bucket: "photos", key: "copy", operation: .copyObject)
        let url = server.s3URL(bucket: "photos", key: "copy")
        let failed = send("PUT", url, headers: ["x-amz-copy-source": "/photos/source"])
        XCTAssertEqual(failed.responseStatusCode, 200)
        XCTAssertEqual(errorCode(failed), "InternalError")
        XCTAssertNil(server.s3Object(bucket: "photos", key: "copy"))

        let copied = send("PUT", url, headers: ["x-amz-copy-source": "/photos/source"])
        XCTAssertEqual(copied.responseStatusCode, 200)
        XCTAssertTrue(copied.responseString()?.contains("<CopyObjectResult>") == true, copied.responseString() ?? "")
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "copy")?.body, Data("original".utf8))
    }

    func testThatAMultipartUploadRetriesAFailedPartCompletesInOrderAndAbortLeavesNothing() throws {
        let url = server.s3URL(bucket: "photos", key: "big.bin")
        let created = send("POST", url.appendingQuery("uploads"), body: Data())
        let uploadID = try XCTUnwrap(xmlValue("UploadId", in: created), created.responseString() ?? "")
        let parts = [Data(repeating: 1, count: 5 * 1024 * 1024), Data("tail".utf8)]
        server.injectS3Fault(.internalError, bucket: "photos", key: "big.bin", partNumber: 2)
        var eTags: [String] = []
        for (index, part) in parts.enumerated() {
            let partURL = url.appendingQuery("partNumber=\(index + 1)&uploadId=\(uploadID)")
            var answer = send("PUT", partURL, body: part)
            if answer.responseStatusCode == 500 { answer = send("PUT", partURL, body: part) }
            XCTAssertEqual(answer.responseStatusCode, 200, answer.responseString() ?? "")
            eTags.append(answer.responseHeaders["ETag"] ?? "")
        }
        XCTAssertEqual(server.s3Requests(bucket: "photos", key: "big.bin").filter { $0.method == "PUT" }.count, 3)
        let listing = zip(1..., eTags).map { "<Part><PartNumber>\($0)</PartNumber><ETag>\($1)</ETag></Part>" }
        let outOfOrder = "<CompleteMultipartUpload>" + listing.reversed().joined() + "</CompleteMultipartUpload>"
        let refused = send("POST", url.appendingQuery("uploadId=\(uploadID)"), body: Data(outOfOrder.utf8))
        XCTAssertEqual(errorCode(refused), "InvalidPartOrder")
        let inOrder = "<CompleteMultipartUpload>" + listing.joined() + "</CompleteMultipartUpload>"
        let completed = send("POST", url.appendingQuery("uploadId=\(uploadID)"), body: Data(inOrder.utf8))
        XCTAssertEqual(completed.responseStatusCode, 200, completed.responseString() ?? "")
        XCTAssertEqual(server.s3Object(bucket: "photos", key: "big.bin")?.body, parts[0] + parts[1])
        XCTAssertTrue(server.s3Object(bucket: "photos", key: "big.bin")?.eTag.hasSuffix("-2\"") == true)
        XCTAssertEqual(server.s3MultipartUploads(bucket: "photos"), [])

        let abandoned = try XCTUnwrap(
            xmlValue("UploadId", in: send("POST", url.appendingQuery("uploads"), body: Data())))
        XCTAssertEqual(server.s3MultipartUploads(bucket: "photos"), [abandoned])
        XCTAssertEqual(send("DELETE", url.appendingQuery("uploadId=\(abandoned)")).responseStatusCode, 204)
        XCTAssertEqual(server.s3MultipartUploads(bucket: "photos"), [])
    }

    // MARK: Helpers

    /// Signs (with `signer`, else the test's own; unless `signed` is false) and sends a request,
    /// waiting for the answer.
    private func send(
        _ method: String, _ url: URL, body: Data? = nil, headers: HTTPHeaders = [:], payloadHash: String? = nil,
        signer: AWSSignatureV4? = nil, signed: Bool = true, date: Date = Date()
    ) -> HTTPRequest {
        guard signed else { return sendAsIs(method, url, headers: headers, body: body) }
        let signed = (signer ?? self.signer).sign(
            method: method, url: url, headers: headers, payloadHash: payloadHash ?? sha256Hex(body ?? Data()),
            date: date)
        return sendAsIs(method, url, headers: signed, body: body)
    }

    /// Sends a request with exactly these headers and body.
    private func sendAsIs(_ method: String, _ url: URL, headers: HTTPHeaders, body: Data? = nil) -> HTTPRequest {
        let request = HTTPRequest(url: url)
        request.requestMethod = method
        request.useCookiePersistence = false
        for (name, value) in headers { request.addRequestHeader(name, value: value) }
        if let body, !body.isEmpty { request.postBody = body }
        request.startSynchronous()
        XCTAssertNil(request.error, "\(method) \(url)")
        return request
    }

    private func errorCode(_ request: HTTPRequest) -> String? {
        guard request.responseString()?.contains("<Error>") == true else { return nil }
        return xmlValue("Code", in: request)
    }

    private func xmlValue(_ name: String, in request: HTTPRequest) -> String? {
        guard let text = request.responseString(), let open = text.range(of: "<\(name)>"),
            let close = text[open.upperBound...].range(of: "</\(name)>")
        else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }

    private func xmlValues(_ name: String, in request: HTTPRequest) -> [String] {
        let parts = (request.responseString() ?? "").components(separatedBy: "<\(name)>").dropFirst()
        return parts.compactMap { $0.components(separatedBy: "</\(name)>").first }
    }

    private func sha256Hex(_ data: Data) -> String {
        Digests.hex(Digests.sha256(data))
    }

    private func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}

extension URL {
    /// This URL with `query` (already encoded) as its query.
    fileprivate func appendingQuery(_ query: String) -> URL {
        URL(string: absoluteString + "?" + query)!
    }
}
