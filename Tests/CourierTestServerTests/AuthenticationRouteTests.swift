import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The Basic and Digest routes, against curl's real handshakes.
final class AuthenticationRouteTests: ServerTestCase {
    private func url(_ route: Route) -> String { server.url(route).absoluteString }

    func testBasicChallengesWithoutCredentialsAndNamesTheUser() throws {
        let route = Route.basicAuth(user: "ann", password: "s3cret")
        let none = try CurlClient.run([url(route)])
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.header("WWW-Authenticate"), "Basic realm=\"Courier\"")
        XCTAssertEqual(none.body, "credentials required")

        let right = try CurlClient.run(["--basic", "-u", "ann:s3cret", url(route)])
        XCTAssertEqual(right.status, 200)
        XCTAssertEqual(right.body, "You are ann by Basic")
        XCTAssertEqual(right.header("X-Courier-Auth-Scheme"), "Basic")

        let wrong = try CurlClient.run(["--basic", "-u", "ann:wrong", url(route)])
        XCTAssertEqual(wrong.status, 401)
        XCTAssertEqual(wrong.body, "credentials refused")
        XCTAssertEqual(server.challengesSent(for: route), 2)
        XCTAssertEqual(server.authorizations(for: route).count, 3)
        XCTAssertNil(server.authorizations(for: route)[0])
        let expected = "Basic " + Data("ann:s3cret".utf8).base64EncodedString()
        XCTAssertEqual(server.authorizations(for: route)[1], expected)
    }

    func testBasicRealmFromTheQuery() throws {
        let route = Route.basicAuth(user: "a b", password: "p:w", realm: "Back office")
        XCTAssertEqual(route.path, "/auth/basic/a%20b/p%3Aw?realm=Back%20office")
        XCTAssertEqual(Route(path: route.path), route)
        let none = try RawHTTPClient(port: server.port).request("GET", route.path)
        XCTAssertEqual(none.header("WWW-Authenticate"), "Basic realm=\"Back office\"")
        let right = try CurlClient.run(["--basic", "-u", "a b:p:w", url(route)])
        XCTAssertEqual(right.body, "You are a b by Basic")
    }

    func testDigestAuthAcceptsCurlsAnswerOnce() throws {
        let route = Route.digestAuth(user: "dan", password: "pw")
        let right = try CurlClient.run(["--digest", "-u", "dan:pw", url(route)])
        XCTAssertEqual(right.statuses, [401, 200])
        XCTAssertEqual(right.body, "You are dan by Digest")
        XCTAssertEqual(right.header("X-Courier-Auth-Scheme"), "Digest")
        XCTAssertEqual(server.challengesSent(for: route), 1)
        let answer = try XCTUnwrap(server.authorizations(for: route).last ?? nil)
        for part in ["username=\"dan\"", "realm=\"Courier\"", "uri=\"\(route.path)\"", "qop=auth", "nc=00000001"] {
            XCTAssertTrue(answer.contains(part), "\(part) in \(answer)")
        }

        let wrong = try CurlClient.run(["--digest", "-u", "dan:nope", url(route)])
        XCTAssertEqual(wrong.statuses, [401, 401])
        XCTAssertEqual(wrong.body, "credentials refused: wrong response")
        XCTAssertTrue(wrong.header("WWW-Authenticate")?.hasPrefix("Digest realm=\"Courier\", qop=\"auth\"") ?? false)
    }

    func testDigestIssuesANewNonceForEveryChallengeAndRefusesAReplay() throws {
        let route = Route.digestAuth(user: "dan", password: "pw")
        let raw = try RawHTTPClient(port: server.port)
        let nonces = try (0..<2).map { _ in
            try XCTUnwrap(raw.request("GET", route.path).header("WWW-Authenticate"))
        }
        XCTAssertNotEqual(nonces[0], nonces[1])
        _ = try CurlClient.run(["--digest", "-u", "dan:pw", url(route)])
        let answer = try XCTUnwrap(server.authorizations(for: route).last ?? nil)
        let replay = try raw.request("GET", route.path, headers: ["Authorization: " + answer])
        XCTAssertEqual(replay.status, 401)
        XCTAssertEqual(replay.text, "credentials refused: nonce count reused")
    }

    func testDigestAuthIntOnABodilessRequest() throws {
        let route = Route.digestAuth(user: "dan", password: "pw", qop: "auth-int")
        XCTAssertEqual(Route(path: route.path), route)
        let right = try CurlClient.run(["--digest", "-u", "dan:pw", url(route)])
        XCTAssertEqual(right.statuses, [401, 200])
        XCTAssertTrue(server.authorizations(for: route).last??.contains("qop=auth-int") ?? false)
    }

    func testDigestStaleNonceIsRetriedWithTheFreshOne() throws {
        let route = Route.digestAuth(user: "dan", password: "pw", stale: true)
        XCTAssertEqual(route.path, "/auth/digest/dan/pw?stale=1")
        // curl answers a stale=true challenge with the new nonce without giving up.
        let result = try CurlClient.run(["--digest", "-u", "dan:pw", url(route)])
        XCTAssertEqual(result.statuses, [401, 401, 200])
        XCTAssertEqual(result.body, "You are dan by Digest")
        XCTAssertEqual(server.challengesSent(for: route), 2)
        let challenge = try XCTUnwrap(result.headLines.first { $0.contains("stale=true") })
        XCTAssertTrue(challenge.hasPrefix("WWW-Authenticate: Digest"), challenge)
        let nonces = server.authorizations(for: route).compactMap { $0 }.map { value in
            value.components(separatedBy: "nonce=\"")[1].prefix { $0 != "\"" }
        }
        XCTAssertEqual(nonces.count, 2)
        XCTAssertNotEqual(nonces[0], nonces[1], "the retry uses the fresh nonce")
    }

    func testBothOffersTwoChallengesAndSaysWhichWasUsed() throws {
        let route = Route.bothAuth(user: "bo", password: "pw")
        let none = try CurlClient.run([url(route)])
        XCTAssertEqual(none.status, 401)
        let challenges = none.headers(named: "WWW-Authenticate")
        XCTAssertEqual(challenges.count, 2)
        XCTAssertEqual(challenges.first, "Basic realm=\"Courier\"")
        XCTAssertTrue(challenges.last?.hasPrefix("Digest realm=\"Courier\"") ?? false)

        let any = try CurlClient.run(["--anyauth", "-u", "bo:pw", url(route)])
        XCTAssertEqual(any.status, 200)
        XCTAssertEqual(any.body, "You are bo by Digest")
        XCTAssertEqual(any.header("X-Courier-Auth-Scheme"), "Digest")
        let basic = try CurlClient.run(["--basic", "-u", "bo:pw", url(route)])
        XCTAssertEqual(basic.body, "You are bo by Basic")
        let wrong = try CurlClient.run(["--anyauth", "-u", "bo:no", url(route)])
        XCTAssertEqual(wrong.status, 401)
    }

    func testEndlessAlwaysChallengesAndCounts() throws {
        let route = Route.endlessAuth
        XCTAssertEqual(Route(path: "/auth/endless"), route)
        let result = try CurlClient.run(["--anyauth", "-u", "x:y", url(route)])
        XCTAssertEqual(result.status, 401)
        XCTAssertEqual(result.body, "credentials refused")
        let raw = try RawHTTPClient(port: server.port).request("GET", route.path)
        XCTAssertEqual(raw.text, "credentials required")
        XCTAssertEqual(server.challengesSent(for: route), server.recordedRequests(for: route).count)
        XCTAssertEqual(server.challengesSent(for: route), 3, "curl's probe, its answer, and the raw request")
    }

    func testPostEchoesTheBodyAfterTheChallenge() throws {
        for scheme in ["basic", "digest"] {
            let route = Route.postAuth(user: "pat", password: "pw", scheme: scheme)
            XCTAssertEqual(Route(path: route.path), route)
            let body = String(repeating: "0123456789", count: 500)
            let result = try CurlClient.run(["--anyauth", "-u", "pat:pw", "--data-binary", body, url(route)])
            XCTAssertEqual(result.status, 200, scheme)
            XCTAssertEqual(result.body, body, scheme)
            XCTAssertEqual(result.header("X-Courier-Auth-Scheme"), scheme == "basic" ? "Basic" : "Digest")
            XCTAssertEqual(server.challengesSent(for: route), 1, scheme)
            let posts = server.recordedRequests(for: route)
            XCTAssertEqual(posts.last?.body, Data(body.utf8), "the body went again with the credentials")
        }
        let raw = try RawHTTPClient(port: server.port).request(
            "POST", Route.postAuth(user: "pat", password: "pw").path, body: Data("abc".utf8))
        XCTAssertEqual(raw.status, 401)
        XCTAssertEqual(raw.text, "credentials required")
    }
}
