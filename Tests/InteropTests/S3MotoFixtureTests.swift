import Courier
import Foundation
import XCTest

/// The moto fixture works: a bucket made, an object put, read back and listed with plain
/// `HTTPRequest`s signed by `AWSSignatureV4`, path-style, on 127.0.0.1.
final class S3MotoFixtureTests: XCTestCase {
    func testThatMotoCreatesABucketAndStoresListsAndServesAnObject() throws {
        let moto = try MotoServer.shared
        let signer = AWSSignatureV4(
            accessKey: moto.accessKey, secretAccessKey: moto.secretAccessKey, region: moto.region)
        let bucket = moto.uniqueBucketName("fixture")
        let body = Data("hello from Courier, through moto".utf8)

        let create = send("PUT", moto.url(bucket: bucket), signer: signer)
        XCTAssertEqual(create.responseStatusCode, 200, create.responseString() ?? "")

        let put = send(
            "PUT", moto.url(bucket: bucket, key: "dir/a b+c.txt"), body: body, payloadHash: Self.bodySHA256,
            signer: signer,
            headers: ["Content-Type": "text/plain", "x-amz-meta-origin": "courier"])
        XCTAssertEqual(put.responseStatusCode, 200, put.responseString() ?? "")
        // md5sum's answer for the body.
        XCTAssertEqual(put.responseHeaders["ETag"], "\"692bc83a8cd92fa9c9d137113bc642cd\"")

        let get = send("GET", moto.url(bucket: bucket, key: "dir/a b+c.txt"), signer: signer)
        XCTAssertEqual(get.responseStatusCode, 200, get.responseString() ?? "")
        XCTAssertEqual(get.responseData(), body)
        XCTAssertEqual(get.responseHeaders["x-amz-meta-origin"], "courier")

        let list = send("GET", moto.url(bucket: bucket, query: "list-type=2&prefix=dir%2F"), signer: signer)
        XCTAssertEqual(list.responseStatusCode, 200, list.responseString() ?? "")
        let listing = list.responseString() ?? ""
        XCTAssertTrue(listing.contains("<Key>dir/a b+c.txt</Key>"), listing)
        XCTAssertTrue(listing.contains("<Size>\(body.count)</Size>"), listing)

        let missing = send("GET", moto.url(bucket: bucket, key: "nothing here"), signer: signer)
        XCTAssertEqual(missing.responseStatusCode, 404)
        XCTAssertTrue(
            missing.responseString()?.contains("<Code>NoSuchKey</Code>") == true, missing.responseString() ?? "")
    }

    /// sha256sum's answer for the body the test stores.
    private static let bodySHA256 = "32d9d8685040117c6434916d6b0fa4af3799c30f0dad769a4ca7065f23f27daf"

    private func send(
        _ method: String, _ url: URL, body: Data = Data(), payloadHash: String = AWSSignatureV4.emptyPayloadHash,
        signer: AWSSignatureV4, headers: HTTPHeaders = [:]
    ) -> HTTPRequest {
        let request = HTTPRequest(url: url)
        request.requestMethod = method
        request.useCookiePersistence = false
        let signed = signer.sign(method: method, url: url, headers: headers, payloadHash: payloadHash, date: Date())
        for (name, value) in signed {
            request.addRequestHeader(name, value: value)
        }
        if !body.isEmpty { request.postBody = body }
        request.startSynchronous()
        XCTAssertNil(request.error, "\(method) \(url)")
        return request
    }
}
