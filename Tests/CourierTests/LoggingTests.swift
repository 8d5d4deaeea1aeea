import Courier
import CourierTestServer
import XCTest

final class LoggingTests: XCTestCase {
    override func tearDown() {
        HTTPRequest.logHandler = nil
        super.tearDown()
    }

    func testThatTheLogShowsRequestLinesHeadersAndTimingWithCredentialsMasked() {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let request = HTTPRequest(url: Fixture.url(.echo))
        request.addRequestHeader("Authorization", value: "Bearer top-secret")
        request.addRequestHeader("X-Visible", value: "shown")
        request.startSynchronous()
        let text = log.all.joined(separator: "\n")
        XCTAssertTrue(text.contains("→ GET \(Fixture.url(.echo).absoluteString)"), text)
        XCTAssertTrue(text.contains("X-Visible: shown"), text)
        XCTAssertTrue(text.contains("Authorization: Bearer ********"), text)
        XCTAssertFalse(text.contains("top-secret"), "credentials never reach the log")
        XCTAssertTrue(text.contains("← HTTP/1.1 200 OK"), text)
        XCTAssertTrue(text.contains("done 200"), text)
    }

    func testThatAnS3RequestsSessionTokenIsMaskedInTheLog() {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        // The echo route answers any path below /echo: a bucket named "echo", path style.
        let request = S3ObjectRequest(bucket: "echo", key: "object.txt")
        request.endpoint = Fixture.url(.echo).deletingLastPathComponent()
        request.accessKey = "AKIDLOG"
        request.secretAccessKey = "log-secret"
        request.sessionToken = "session-token-secret"
        request.startSynchronous()
        XCTAssertNil(request.error)
        let text = log.all.joined(separator: "\n")
        XCTAssertTrue(text.contains("x-amz-security-token: ********"), text)
        XCTAssertTrue(text.contains("Authorization: AWS4-HMAC-SHA256 ********"), text)
        XCTAssertFalse(text.contains("session-token-secret"), "the token never reaches the log: \(text)")
        XCTAssertFalse(text.contains("log-secret"), text)
    }

    func testThatRetriesAreLogged() throws {
        let server = try TestServer()
        defer { server.stop() }
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let request = HTTPRequest(url: server.url(.stallTimes(key: "log", count: 1)))
        request.timeOutSeconds = 0.2
        request.numberOfTimesToRetryOnTimeout = 1
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertTrue(log.all.contains { $0.contains("retry 1 of 1") }, log.all.joined(separator: "\n"))
        XCTAssertTrue(log.all.contains { $0.contains("(attempt 2)") })
    }
}

/// The log of a request whose authentication delegate supplies credentials: each attempt's
/// request headers show the Authorization it presents, masked, and never the secret.
final class AuthenticatedAttemptLoggingTests: AuthenticationTestCase {
    private let user = "log_user"
    private let password = "pw-7Kq2xLogged"

    override func tearDown() {
        HTTPRequest.logHandler = nil
        super.tearDown()
    }

    func testThatTheAttemptAnsweringABasicChallengeLogsItsAuthorizationMasked() throws {
        try assertAttemptsLogged(.basicAuth(user: user, password: password), scheme: "Basic")
    }

    func testThatTheAttemptAnsweringADigestChallengeLogsItsAuthorizationMasked() throws {
        try assertAttemptsLogged(.digestAuth(user: user, password: password), scheme: "Digest")
    }

    /// Runs `route` with a delegate that supplies the credentials when asked: the first attempt
    /// presents none, the second presents them.
    private func assertAttemptsLogged(
        _ route: Route, scheme: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let log = EventLog()
        HTTPRequest.logHandler = { log.add($0) }
        let supplier = CredentialSupplier()
        supplier.answers = [(user, password)]
        let request = request(route)
        request.delegate = supplier
        request.startAsynchronous()
        waitUntil { request.isFinished }
        HTTPRequest.logHandler = nil
        XCTAssertNil(request.error, file: file, line: line)
        XCTAssertEqual(request.responseStatusCode, 200, file: file, line: line)

        // The route's path holds the password (as httpbin's does): only the request's own entries
        // count, with the path taken out.
        let entries = log.all.filter { $0.contains(route.path) }.map {
            $0.replacingOccurrences(of: route.path, with: "/…")
        }
        let text = entries.joined(separator: "\n")
        let attempts = entries.filter { $0.contains("→ GET ") }
        XCTAssertEqual(attempts.count, 2, text, file: file, line: line)
        let authorizationLines = attempts.map { attempt in
            attempt.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                $0.lowercased().hasPrefix("authorization:")
            }
        }
        XCTAssertEqual(
            authorizationLines.first, [], "the first attempt presents nothing: \(text)", file: file, line: line)
        XCTAssertEqual(
            authorizationLines.last, ["Authorization: \(scheme) ********"], text, file: file, line: line)
        XCTAssertFalse(text.contains(password), "the password reached the log: \(text)", file: file, line: line)
        let basicCredential = Data("\(user):\(password)".utf8).base64EncodedString()
        XCTAssertFalse(text.contains(basicCredential), "the credential reached the log", file: file, line: line)
    }
}
