import Courier
import CourierTestServer
import Foundation
import XCTest

/// Authentication against servers Courier did not write: httpbin's Basic, Digest (qop auth and
/// auth-int) and hidden Basic, and nginx's auth_basic.
final class AuthenticationInteropTests: FreshSessionTestCase {
    private func run(
        _ url: URL, user: String?, password: String?, configure: (HTTPRequest) -> Void = { _ in }
    )
        -> HTTPRequest
    {
        let request = HTTPRequest(url: url)
        request.username = user
        request.password = password
        request.timeOutSeconds = 10
        configure(request)
        request.startSynchronous()
        return request
    }

    func testThatHTTPBinsBasicAuthenticationWorksAndRefusesWrongCredentials() throws {
        let servers = try InteropServers.shared
        let url = servers.httpbinURL("/basic-auth/courier/s3cret")
        let right = run(url, user: "courier", password: "s3cret")
        XCTAssertNil(right.error)
        XCTAssertEqual(right.responseStatusCode, 200)
        XCTAssertTrue(right.responseString()?.contains("\"authenticated\": true") == true, right.responseString() ?? "")
        XCTAssertEqual(right.authenticationScheme, "Basic")
        HTTPRequest.clearSession()
        let wrong = run(url, user: "courier", password: "nope")
        XCTAssertEqual(wrong.error?.type, .authentication)
        XCTAssertEqual(wrong.responseStatusCode, 401)
    }

    func testThatHTTPBinsDigestAuthenticationWorksWithQopAuthAndAuthInt() throws {
        let servers = try InteropServers.shared
        for qop in ["auth", "auth-int"] {
            HTTPRequest.clearSession()
            let request = run(
                servers.httpbinURL("/digest-auth/\(qop)/courier/s3cret"), user: "courier", password: "s3cret")
            XCTAssertNil(request.error, qop)
            XCTAssertEqual(request.responseStatusCode, 200, qop)
            XCTAssertEqual(request.authenticationScheme, "Digest", qop)
        }
    }

    func testThatHTTPBinsDigestAuthenticationWorksWithMD5AndSHA256() throws {
        // The answer to the first challenge is Courier's own computation (DigestAuthorization).
        let servers = try InteropServers.shared
        for algorithm in ["MD5", "SHA-256"] {
            HTTPRequest.clearSession()
            let request = run(
                servers.httpbinURL("/digest-auth/auth/courier/s3cret/\(algorithm)"), user: "courier",
                password: "s3cret")
            XCTAssertNil(request.error, algorithm)
            XCTAssertEqual(request.responseStatusCode, 200, algorithm)
            XCTAssertEqual(request.authenticationRetryCount, 1, algorithm)
        }
    }

    func testThatHTTPBinsHiddenBasicAuthenticationNeedsCredentialsBeforeTheChallenge() throws {
        let servers = try InteropServers.shared
        let url = servers.httpbinURL("/hidden-basic-auth/courier/s3cret")
        let afterChallenge = run(url, user: "courier", password: "s3cret")
        XCTAssertEqual(afterChallenge.responseStatusCode, 404, "it never challenges: no credentials were sent")
        let preemptive = run(url, user: "courier", password: "s3cret") { $0.authenticationScheme = "Basic" }
        XCTAssertNil(preemptive.error)
        XCTAssertEqual(preemptive.responseStatusCode, 200)
        XCTAssertEqual(preemptive.authenticationRetryCount, 0)
    }

    func testThatNginxAuthBasicWorksAndTheSessionReusesTheCredentials() throws {
        let servers = try InteropServers.shared
        let name = "auth/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 1000)
        let url = servers.nginxURL("/protected/\(name)")
        let none = run(url, user: nil, password: nil)
        XCTAssertEqual(none.error?.type, .authentication)
        XCTAssertEqual(none.authenticationRealm, "Courier nginx")
        let right = run(url, user: "interop", password: "nginx-secret")
        XCTAssertNil(right.error)
        XCTAssertEqual(right.responseData(), TestServer.deterministicBytes(count: 1000))
        let reused = run(url, user: nil, password: nil)
        XCTAssertNil(reused.error)
        XCTAssertEqual(reused.authenticationRetryCount, 0, "the session's Basic credentials went out first")
    }
}
