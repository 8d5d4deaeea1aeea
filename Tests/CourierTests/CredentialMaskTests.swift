import CourierTestServer
import Foundation
import XCTest

@testable import Courier

/// Credentials never appear in what Courier shows: URLs, error descriptions, logged headers.
final class CredentialMaskTests: XCTestCase {
    override func tearDown() {
        HTTPRequest.logHandler = nil
        super.tearDown()
    }

    func testThatAURLsPasswordIsMasked() {
        XCTAssertEqual(
            CredentialMask.url("http://alice:s3cret@example.test/a?b=c"), "http://alice:***@example.test/a?b=c")
        XCTAssertEqual(
            CredentialMask.url("https://alice:s3cret@example.test:8443"), "https://alice:***@example.test:8443")
        XCTAssertEqual(CredentialMask.url("http://token@example.test/"), "http://***@example.test/", "a bare user too")
        XCTAssertEqual(CredentialMask.url("http://a:p@ss@example.test/"), "http://a:***@example.test/", "last @ wins")
        XCTAssertEqual(CredentialMask.url("http://alice:@example.test/"), "http://alice:***@example.test/")
        XCTAssertEqual(
            CredentialMask.url("http://example.test/mail@example.test"), "http://example.test/mail@example.test",
            "an @ in the path is no user information")
        XCTAssertEqual(CredentialMask.url("http://example.test/?to=a:b@c"), "http://example.test/?to=a:b@c")
        XCTAssertEqual(CredentialMask.url("http://example.test#a:b@c"), "http://example.test#a:b@c")
        XCTAssertEqual(CredentialMask.url("not a url"), "not a url")
        XCTAssertEqual(Log.masked(URL(string: "http://u:p%40x@h.test/")!), "http://u:***@h.test/")
    }

    func testThatAPresignedURLsSignatureAndTokenAreMasked() {
        XCTAssertEqual(
            CredentialMask.url(
                "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20240101"
                    + "&X-Amz-Expires=60&X-Amz-Security-Token=tok%2Ben&X-Amz-SignedHeaders=host&X-Amz-Signature=abc123#f"),
            "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20240101"
                + "&X-Amz-Expires=60&X-Amz-Security-Token=***&X-Amz-SignedHeaders=host&X-Amz-Signature=***#f")
        XCTAssertEqual(
            CredentialMask.url("http://h.test/k?AWSAccessKeyId=AKID&Expires=1&Signature=c2ln%3D&x-amz-security-token=t"),
            "http://h.test/k?AWSAccessKeyId=AKID&Expires=1&Signature=***&x-amz-security-token=***", "SigV2's too")
        XCTAssertEqual(CredentialMask.url("http://h.test/?signatures=1&x=2"), "http://h.test/?signatures=1&x=2")
    }

    func testThatAPresignedURLsSignatureIsNotLogged() throws {
        let server = try TestServer()
        defer { server.stop() }
        let lines = LockedLines()
        HTTPRequest.logHandler = { lines.append($0) }
        let request = S3ObjectRequest(bucket: "b", key: "k")
        request.endpoint = server.baseURL
        request.accessKey = "AKIDEXAMPLE"
        request.secretAccessKey = "secret"
        let url = try request.presignedURL(expiresIn: 60)
        let signature = try XCTUnwrap(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "X-Amz-Signature" }?.value)
        let plain = HTTPRequest(url: url)
        plain.startSynchronous()
        XCTAssertFalse(lines.all.isEmpty)
        XCTAssertFalse(lines.all.joined().contains(signature), "the signature stays out of the log")
        XCTAssertFalse(plain.description.contains(signature))
    }

    func testThatAuthorizationValuesKeepOnlyAKnownScheme() {
        XCTAssertEqual(CredentialMask.authorizationValue("Basic YWxpY2U6czNjcmV0"), "Basic ********")
        XCTAssertEqual(
            CredentialMask.authorizationValue(" Digest username=\"alice\", response=\"x\""),
            "Digest ********")
        XCTAssertEqual(CredentialMask.authorizationValue("NTLM TlRMTVNTUAAB"), "NTLM ********")
        XCTAssertEqual(CredentialMask.authorizationValue("bearer abc"), "bearer ********")
        XCTAssertEqual(CredentialMask.authorizationValue("s3cret-token"), "********", "a bare token")
        XCTAssertEqual(CredentialMask.authorizationValue("s3cret token"), "********", "an unknown first word")
        XCTAssertEqual(Log.masked("Proxy-Authorization: Basic YWxpY2U6czNjcmV0"), "Proxy-Authorization: Basic ********")
        XCTAssertEqual(Log.masked("authorization:Basic eA=="), "authorization: Basic ********")
        XCTAssertEqual(Log.masked("Cookie: session=s3cret"), "Cookie: ********")
        XCTAssertEqual(Log.masked("X-Other: visible"), "X-Other: visible")
    }

    func testThatAFailedRequestsErrorAndDescriptionHideThePasswordInItsURL() throws {
        let closed = try TestServer()
        let port = closed.port
        closed.stop()
        let request = HTTPRequest(url: URL(string: "http://alice:s3cret@127.0.0.1:\(port)/private")!)
        request.startSynchronous()
        let error = try XCTUnwrap(request.error)
        XCTAssertEqual(error.type, .connectionFailure)
        XCTAssertFalse(error.description.contains("s3cret"), error.description)
        // The URL as it went to libcurl, which never carries the user part (Courier presents it).
        XCTAssertTrue(error.description.contains("127.0.0.1:\(port)/private"), error.description)
        XCTAssertFalse((error as NSError).localizedDescription.contains("s3cret"))
        XCTAssertFalse(request.description.contains("s3cret"), request.description)
    }

    func testThatLoggedAuthorizationHeadersShowTheSchemeOnly() {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.addRequestHeader("Authorization", value: "Basic YWxpY2U6czNjcmV0")
        request.addRequestHeader("Proxy-Authorization", value: "Basic Ym9iOmJ1aWxkZXI=")
        request.startSynchronous()
        let text = log.all.joined(separator: "\n")
        XCTAssertTrue(text.contains("Authorization: Basic ********"), text)
        XCTAssertTrue(text.contains("Proxy-Authorization: Basic ********"), text)
        XCTAssertFalse(text.contains("YWxpY2U6czNjcmV0"), text)
        XCTAssertFalse(text.contains("Ym9iOmJ1aWxkZXI="), text)
    }
}

/// Log lines collected from any thread.
private final class LockedLines: @unchecked Sendable {
    // @unchecked Sendable: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
