import XCTest

@testable import Courier

/// The Digest answers Courier computes for the attempt after a challenge: RFC 7616's and RFC
/// 2617's worked examples (other forms' expected values from Python's hashlib), and what is left
/// to libcurl.
final class DigestAuthorizationTests: XCTestCase {
    private let mufasa = StoredCredential(user: "Mufasa", password: "Circle of Life")
    private let rfc7616Nonce = "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v"
    private let rfc7616Opaque = "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"
    private let rfc7616ClientNonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    private func challenge(_ value: String) throws -> AuthenticationChallenge {
        try XCTUnwrap(AuthenticationChallenge.parse([value]).first)
    }

    /// The parameters of an Authorization value, unquoted.
    private func fields(_ value: String?) throws -> [String: String] {
        let value = try XCTUnwrap(value)
        XCTAssertTrue(value.hasPrefix("Digest "), value)
        return try XCTUnwrap(AuthenticationChallenge.parse([value]).first).parameters
    }

    func testThatTheAnswersMatchRFC7616sExamplesForSHA256AndMD5() throws {
        let expected = [
            "SHA-256": "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
            "MD5": "8ca523f5e9506fed4657c9700eebdbec",
        ]
        for (algorithm, response) in expected {
            let offered = try challenge(
                "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=\(algorithm), "
                    + "nonce=\"\(rfc7616Nonce)\", opaque=\"\(rfc7616Opaque)\"")
            let value = DigestAuthorization.value(
                answering: offered, credential: mufasa, method: "GET", uri: "/dir/index.html", hasBody: false,
                clientNonce: rfc7616ClientNonce)
            let answer = try fields(value)
            XCTAssertEqual(answer["response"], response, algorithm)
            XCTAssertEqual(answer["username"], "Mufasa")
            XCTAssertEqual(answer["realm"], "http-auth@example.org")
            XCTAssertEqual(answer["uri"], "/dir/index.html")
            XCTAssertEqual(answer["nonce"], rfc7616Nonce)
            XCTAssertEqual(answer["cnonce"], rfc7616ClientNonce)
            XCTAssertEqual(answer["nc"], "00000001")
            XCTAssertEqual(answer["qop"], "auth", "auth is chosen when both are offered")
            XCTAssertEqual(answer["opaque"], rfc7616Opaque)
            XCTAssertEqual(answer["algorithm"], algorithm)
        }
    }

    func testThatRFC2617sExampleAndItsSessionAuthIntAndQoplessFormsAreAnswered() throws {
        let credential = StoredCredential(user: "Mufasa", password: "Circle Of Life")
        let base = "Digest realm=\"testrealm@host.com\", nonce=\"dcd98b7102dd2f0e8b11d0f600bfb0c093\""
        let cases: [(challenge: String, response: String)] = [
            (base + ", qop=\"auth\"", "6629fae49393a05397450978507c4ef1"),
            (base + ", qop=\"auth\", algorithm=MD5-sess", "8e3825c57e897f5a0dec6c2d4e5059d0"),
            (base + ", qop=\"auth-int\"", "5e6610ecf9ba3017a4870ad48e3ad30b"),
            (base, "670fd8c2df070c60b045671b8b24ff02"),
        ]
        for (offered, response) in cases {
            let value = DigestAuthorization.value(
                answering: try challenge(offered), credential: credential, method: "GET", uri: "/dir/index.html",
                hasBody: false, clientNonce: "0a4f113b")
            XCTAssertEqual(try fields(value)["response"], response, offered)
        }
        let qopless = try fields(
            DigestAuthorization.value(
                answering: try challenge(base), credential: credential, method: "GET", uri: "/", hasBody: false))
        XCTAssertNil(qopless["nc"], "RFC 2069 has no nonce count")
        XCTAssertNil(qopless["qop"])
    }

    func testThatWhatCourierDoesNotSpeakIsLeftToLibcurl() throws {
        let base = "Digest realm=\"r\", nonce=\"n\""
        let leftToLibcurl = [
            (base + ", qop=\"auth\", algorithm=SHA-512-256", false),
            (base + ", qop=\"auth\", userhash=true", false),
            (base + ", qop=\"auth-int\"", true),
            (base + ", qop=\"auth-conf\"", false),
            ("Digest realm=\"r\", qop=\"auth\"", false),
        ]
        for (offered, hasBody) in leftToLibcurl {
            XCTAssertNil(
                DigestAuthorization.value(
                    answering: try challenge(offered), credential: mufasa, method: "POST", uri: "/", hasBody: hasBody),
                offered)
        }
        let lineBreak = StoredCredential(user: "a\r\nX-Injected: 1", password: "p")
        XCTAssertNil(
            DigestAuthorization.value(
                answering: try challenge(base), credential: lineBreak, method: "GET", uri: "/", hasBody: false))
    }

    func testThatQuotesInTheUserNameAreEscapedAndEachAnswerHasItsOwnClientNonce() throws {
        let offered = try challenge("Digest realm=\"r\", nonce=\"n\", qop=\"auth\"")
        let quoting = StoredCredential(user: "say \"hi\" \\o/", password: "p")
        let value = try XCTUnwrap(
            DigestAuthorization.value(answering: offered, credential: quoting, method: "GET", uri: "/", hasBody: false))
        XCTAssertTrue(value.contains("username=\"say \\\"hi\\\" \\\\o/\""), value)
        XCTAssertEqual(try fields(value)["username"], "say \"hi\" \\o/")
        let again = DigestAuthorization.value(
            answering: offered, credential: mufasa, method: "GET", uri: "/", hasBody: false)
        XCTAssertNotEqual(try fields(value)["cnonce"], try fields(again)["cnonce"])
        XCTAssertEqual(try fields(again)["cnonce"]?.count, 32)
    }

    func testThatTheURIIsTheRequestTargetLibcurlSends() throws {
        let cases: [(String, String?)] = [
            ("http://h/a/b?x=1&y=%20", "/a/b?x=1&y=%20"),
            ("http://u:p@h:8080", "/"),
            ("http://h/a%2Fb/#fragment", "/a%2Fb/"),
            ("http://h/a/../b", nil),
            ("http://h/./b", nil),
        ]
        for (url, target) in cases {
            XCTAssertEqual(DigestAuthorization.requestURI(of: try XCTUnwrap(URL(string: url))), target, url)
        }
    }
}
