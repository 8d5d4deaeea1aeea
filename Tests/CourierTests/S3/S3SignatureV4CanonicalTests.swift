import Foundation
import XCTest

@testable import Courier

/// The canonical request's rules, each on its own: how a path, a query and headers are signed,
/// what `sign` returns, and presigned URLs' parameters and lifetimes.
final class S3SignatureV4CanonicalTests: XCTestCase {
    private let signer = AWSSignatureV4(accessKey: "AK", secretAccessKey: "secret", region: "eu-west-1")
    private let date = Date(timeIntervalSince1970: 1_369_353_600)

    /// The canonical request's lines for a GET of `url` with `headers`.
    private func lines(_ url: String, headers: HTTPHeaders = [:], signer: AWSSignatureV4? = nil) throws -> [String] {
        let url = try XCTUnwrap(URL(string: url), url)
        return (signer ?? self.signer).signing(
            method: "GET", url: url, headers: headers, payloadHash: AWSSignatureV4.emptyPayloadHash, date: date
        ).computation.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    private func authorization(_ url: String, headers: HTTPHeaders = [:]) throws -> String? {
        let url = try XCTUnwrap(URL(string: url), url)
        return signer.sign(
            method: "PUT", url: url, headers: headers, payloadHash: AWSSignatureV4.unsignedPayload, date: date
        )["Authorization"]
    }

    // MARK: The path

    func testThatAPathIsSignedWithoutNormalisingDotsOrDoubleSlashes() throws {
        XCTAssertEqual(try lines("https://h/a//b/./c/../d")[1], "/a//b/./c/../d")
        XCTAssertEqual(try lines("https://h")[1], "/")
        XCTAssertEqual(try lines("https://h/")[1], "/")
    }

    func testThatEveryByteButTheUnreservedOnesIsEncodedOnceInAPath() throws {
        XCTAssertEqual(try lines("https://h/a%20b/c-d_e.f~g")[1], "/a%20b/c-d_e.f~g")
        // Already encoded is decoded first, so never encoded twice.
        XCTAssertEqual(try lines("https://h/a%2520b")[1], "/a%2520b")
        XCTAssertEqual(try lines("https://h/%7e")[1], "/~")
    }

    func testThatAPlusAndItsPercentEncodingSignAlike() throws {
        XCTAssertEqual(try lines("https://h/a+b")[1], "/a%2Bb")
        XCTAssertEqual(try authorization("https://h/a+b"), try authorization("https://h/a%2Bb"))
        XCTAssertEqual(try authorization("https://h/a+b"), try authorization("https://h/a%2bb"))
    }

    func testThatReservedCharactersSignAlikeWhetherTheURLEncodesThemOrNot() throws {
        let raw = "https://h/k@e=y$,;:!*'()&"
        let encoded = "https://h/k%40e%3Dy%24%2C%3B%3A%21%2A%27%28%29%26"
        XCTAssertEqual(try lines(raw)[1], "/k%40e%3Dy%24%2C%3B%3A%21%2A%27%28%29%26")
        XCTAssertEqual(try authorization(raw), try authorization(encoded))
    }

    func testThatNonASCIIKeysAreSignedAsTheirUTF8InUpperCaseHex() throws {
        let expected = "/%C3%A9/%E6%97%A5%E6%9C%AC"
        XCTAssertEqual(try lines("https://h/é/日本")[1], expected)
        XCTAssertEqual(try lines("https://h/%c3%a9/%e6%97%a5%e6%9c%ac")[1], expected)
    }

    func testThatAQuestionMarkInAKeyIsPartOfThePathWhenTheURLEncodesIt() throws {
        let lines = try lines("https://h/what%3F?acl")
        XCTAssertEqual(lines[1], "/what%3F")
        XCTAssertEqual(lines[2], "acl=")
    }

    func testThatAnEncodedSlashIsSignedAsTheSlashS3DecodesItTo() throws {
        XCTAssertEqual(try lines("https://h/a%2Fb")[1], "/a/b")
    }

    // MARK: The query

    func testThatQueryNamesAndValuesAreEncodedAndSorted() throws {
        XCTAssertEqual(
            try lines("https://h/?prefix=a%20b/c&delimiter=/&marker=x=y&list-type=2")[2],
            "delimiter=%2F&list-type=2&marker=x%3Dy&prefix=a%20b%2Fc")
        // By encoded name, then value, in byte order: upper case before lower case.
        XCTAssertEqual(try lines("https://h/?b=2&a=2&a=1&Z=0")[2], "Z=0&a=1&a=2&b=2")
        XCTAssertEqual(try lines("https://h/?uploads&acl")[2], "acl=&uploads=")
        XCTAssertEqual(try lines("https://h/?x=a+b&y=%7E")[2], "x=a%2Bb&y=~")
        XCTAssertEqual(try lines("https://h/?a=1&&b=&")[2], "a=1&b=")
    }

    // MARK: Headers

    func testThatHeadersAreLowerCasedTrimmedCollapsedAndSorted() throws {
        let lines = try lines(
            "https://h/k",
            headers: [
                "X-Amz-Meta-Note": "  two   words\tand  a tab ", "Content-Type": "text/plain", "x-amz-acl": "private",
            ])
        XCTAssertEqual(
            Array(lines[3...8]),
            [
                "content-type:text/plain", "host:h", "x-amz-acl:private",
                "x-amz-content-sha256:" + AWSSignatureV4.emptyPayloadHash, "x-amz-date:20130524T000000Z",
                "x-amz-meta-note:two words and a tab",
            ])
        XCTAssertEqual(lines[10], "content-type;host;x-amz-acl;x-amz-content-sha256;x-amz-date;x-amz-meta-note")
    }

    func testThatTheHostHasItsPortOnlyWhenItIsNotTheSchemesDefault() throws {
        XCTAssertEqual(try lines("http://127.0.0.1:9000/b/k")[3], "host:127.0.0.1:9000")
        XCTAssertEqual(try lines("https://s3.example.com:443/b/k")[3], "host:s3.example.com")
        XCTAssertEqual(try lines("http://s3.example.com:80/b/k")[3], "host:s3.example.com")
        XCTAssertEqual(try lines("https://s3.example.com:80/b/k")[3], "host:s3.example.com:80")
        XCTAssertEqual(try lines("http://[::1]:9000/b/k")[3], "host:[::1]:9000")
    }

    func testThatAHostHeaderGivenWinsOverTheURLs() throws {
        XCTAssertEqual(
            try lines("http://127.0.0.1:9000/b/k", headers: ["Host": "bucket.local"])[3], "host:bucket.local")
    }

    // MARK: What sign returns

    func testThatSignReturnsTheHeadersGivenPlusWhatItSigned() throws {
        let url = try XCTUnwrap(URL(string: "https://b.s3.amazonaws.com/k"))
        let headers = signer.sign(
            method: "PUT", url: url, headers: ["Content-Type": "text/plain", "Authorization": "Basic stale"],
            payloadHash: "abc", date: date)
        XCTAssertEqual(headers.map(\.name), ["Content-Type", "x-amz-date", "x-amz-content-sha256", "Authorization"])
        XCTAssertEqual(headers["x-amz-content-sha256"], "abc")
        XCTAssertEqual(
            headers["Authorization"]?.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AK/20130524/eu-west-1/s3/aws4_request, "
                    + "SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature="),
            true, headers["Authorization"] ?? "")
    }

    func testThatASessionTokenIsSentAndSigned() throws {
        let signer = AWSSignatureV4(
            accessKey: "AK", secretAccessKey: "secret", sessionToken: "to/ken+=", region: "us-east-1")
        let url = try XCTUnwrap(URL(string: "https://b.s3.amazonaws.com/k"))
        let headers = signer.sign(
            method: "GET", url: url, headers: [:], payloadHash: AWSSignatureV4.emptyPayloadHash, date: date)
        XCTAssertEqual(headers["x-amz-security-token"], "to/ken+=")
        XCTAssertTrue(headers["Authorization"]?.contains("x-amz-date;x-amz-security-token,") == true)
        let presigned = signer.presign(method: "GET", url: url, date: date, expiresIn: 60).absoluteString
        XCTAssertTrue(
            presigned.contains("&X-Amz-SignedHeaders=host&X-Amz-Security-Token=to%2Fken%2B%3D&X-Amz-Signature="),
            presigned)
    }

    func testThatAnotherServiceIsScopedToItAndGetsNoContentHashHeader() throws {
        let signer = AWSSignatureV4(
            accessKey: "AK", secretAccessKey: "secret", region: "us-east-1", service: "execute-api")
        let url = try XCTUnwrap(URL(string: "https://api.example.com/"))
        let headers = signer.sign(
            method: "GET", url: url, headers: [:], payloadHash: AWSSignatureV4.emptyPayloadHash, date: date)
        XCTAssertNil(headers["x-amz-content-sha256"])
        XCTAssertTrue(
            headers["Authorization"]?.contains("/us-east-1/execute-api/aws4_request, SignedHeaders=host;x-amz-date,")
                == true)
    }

    func testThatTheDateIsUTCToTheSecond() throws {
        let url = try XCTUnwrap(URL(string: "https://h/"))
        let sign = { (date: Date) in
            self.signer.sign(method: "GET", url: url, headers: [:], payloadHash: "", date: date)["x-amz-date"]
        }
        XCTAssertEqual(sign(Date(timeIntervalSince1970: 1_369_353_600.999)), "20130524T000000Z")
        XCTAssertEqual(sign(Date(timeIntervalSince1970: 951_825_599)), "20000229T115959Z")
        XCTAssertEqual(sign(Date(timeIntervalSince1970: -1)), "19691231T235959Z")
        XCTAssertEqual(
            AWSTimestamp(Date(timeIntervalSince1970: 1_174_594_602)).httpDate, "Thu, 22 Mar 2007 20:16:42 GMT")
    }

    func testThatSigningFromManyThreadsAtOnceGivesWhatSigningInTurnGives() throws {
        let signer = self.signer
        let url = try XCTUnwrap(URL(string: "https://b.s3.amazonaws.com/k%20ey?acl"))
        let dates = (0..<64).map { Date(timeIntervalSince1970: 1_369_353_600 + Double($0) * 86_399.5) }
        let expected = dates.map {
            signer.sign(method: "GET", url: url, headers: ["Range": "bytes=0-1"], payloadHash: "", date: $0)
        }
        let rounds = 4
        let results = Locked([HTTPHeaders?](repeating: nil, count: dates.count * rounds))
        DispatchQueue.concurrentPerform(iterations: dates.count * rounds) { iteration in
            let headers = signer.sign(
                method: "GET", url: url, headers: ["Range": "bytes=0-1"], payloadHash: "",
                date: dates[iteration % dates.count])
            results.withLock { $0[iteration] = headers }
        }
        XCTAssertEqual(results.withLock { $0 }, Array([[HTTPHeaders?]](repeating: expected, count: rounds).joined()))
    }

    func testThatTheCachedSigningKeyFollowsTheDay() throws {
        let url = try XCTUnwrap(URL(string: "https://b.s3.amazonaws.com/k"))
        // Back and forth across midnight: each signature is a fresh signer's.
        for seconds in [1_369_353_599.0, 1_369_353_600, 1_369_353_599, 1_369_440_000, 1_369_353_601] {
            let date = Date(timeIntervalSince1970: seconds)
            let fresh = AWSSignatureV4(accessKey: "AK", secretAccessKey: "secret", region: "eu-west-1")
            XCTAssertEqual(
                signer.sign(method: "GET", url: url, headers: [:], payloadHash: "", date: date),
                fresh.sign(method: "GET", url: url, headers: [:], payloadHash: "", date: date))
            XCTAssertEqual(signer.signingKey(AWSTimestamp(date)), signer.deriveSigningKey(AWSTimestamp(date)))
        }
    }

    // MARK: Presigned URLs

    func testThatAPresignedURLKeepsTheServicesParametersFirstAndEncodesTheKeyAsSigned() throws {
        let url = try XCTUnwrap(
            URL(string: "http://127.0.0.1:9000/bucket/a+b%20c?response-content-type=text/plain&versionId=3"))
        let presigned = signer.presign(method: "GET", url: url, date: date, expiresIn: 3600).absoluteString
        XCTAssertTrue(
            presigned.hasPrefix(
                "http://127.0.0.1:9000/bucket/a%2Bb%20c?response-content-type=text%2Fplain&versionId=3"
                    + "&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AK%2F20130524%2Feu-west-1%2Fs3%2Faws4_request"
                    + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature="),
            presigned)
    }

    func testThatPresigningAPresignedURLAgainReplacesItsAuthentication() throws {
        let url = try XCTUnwrap(URL(string: "https://b.s3.amazonaws.com/k?versionId=1"))
        let first = signer.presign(method: "GET", url: url, date: date, expiresIn: 60)
        let later = date.addingTimeInterval(3600)
        XCTAssertEqual(
            signer.presign(method: "GET", url: first, date: later, expiresIn: 60),
            signer.presign(method: "GET", url: url, date: later, expiresIn: 60))
    }

    func testThatAPresignedLifetimeIsWholeSecondsFromOneSecondToSevenDays() {
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(3600.9), 3600)
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(0), 1)
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(-5), 1)
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(604_800), 604_800)
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(604_801), 604_800)
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(.infinity), 604_800)
        XCTAssertEqual(AWSSignatureV4.presignedLifetime(.nan), 1)
    }

    func testThatTheEmptyPayloadHashIsTheHashOfNothing() {
        XCTAssertEqual(AWSSignatureV4.emptyPayloadHash, Digests.hex(Digests.sha256("")))
        XCTAssertEqual(AWSSignatureV4.unsignedPayload, "UNSIGNED-PAYLOAD")
    }
}
