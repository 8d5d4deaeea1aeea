import XCTest

@testable import Courier

/// ASI's redirect rules, decided without a socket: each status and method, the credential rule
/// across hosts, ports and schemes, Location resolution and the limit.
final class RedirectPolicyTests: XCTestCase {
    private let here = URL(string: "https://example.test/a/b")!
    private let sameHost = URL(string: "https://example.test/c")!

    func testThatEveryRedirectStatusIsFollowedAndOthersAreNot() {
        let policy = RedirectPolicy()
        for status in [301, 302, 303, 307, 308] {
            XCTAssertTrue(policy.follows(status: status, hasLocation: true), "\(status)")
        }
        for status in [200, 300, 304, 305, 306, 401, 500] {
            XCTAssertFalse(policy.follows(status: status, hasLocation: true), "\(status)")
        }
    }

    func testThatARedirectWithoutALocationIsTheAnswer() {
        XCTAssertFalse(RedirectPolicy().follows(status: 302, hasLocation: false))
    }

    func testThatShouldRedirectFalseStopsAtTheRedirect() {
        XCTAssertFalse(RedirectPolicy(shouldRedirect: false).follows(status: 301, hasLocation: true))
    }

    func testThatA303TurnsEveryMethodButHEADIntoAGET() {
        let policy = RedirectPolicy(shouldUseRFC2616RedirectBehaviour: true)
        for method in ["POST", "PUT", "DELETE", "GET"] {
            let hop = policy.hop(status: 303, method: method, from: here, to: sameHost)
            XCTAssertEqual(hop.method, "GET", method)
            XCTAssertTrue(hop.becomesGET, method)
        }
    }

    func testThatA301Or302POSTBecomesAGETAsASIDid() {
        for status in [301, 302] {
            let hop = RedirectPolicy().hop(status: status, method: "POST", from: here, to: sameHost)
            XCTAssertEqual(hop.method, "GET")
            XCTAssertTrue(hop.becomesGET, "the body goes")
        }
    }

    func testThatRFC2616BehaviourKeepsA301Or302POSTWhole() {
        let policy = RedirectPolicy(shouldUseRFC2616RedirectBehaviour: true)
        for status in [301, 302] {
            let hop = policy.hop(status: status, method: "POST", from: here, to: sameHost)
            XCTAssertEqual(hop.method, "POST")
            XCTAssertFalse(hop.becomesGET, "the body stays")
        }
    }

    func testThatA307Or308KeepsMethodAndBody() {
        for status in [307, 308] {
            for method in ["POST", "PUT", "PATCH"] {
                let hop = RedirectPolicy().hop(status: status, method: method, from: here, to: sameHost)
                XCTAssertEqual(hop.method, method)
                XCTAssertFalse(hop.becomesGET)
            }
        }
    }

    func testThatAHEADStaysAHEADOnEveryStatus() {
        for status in [301, 302, 303, 307, 308] {
            let hop = RedirectPolicy().hop(status: status, method: "HEAD", from: here, to: sameHost)
            XCTAssertEqual(hop.method, "HEAD", "\(status)")
            XCTAssertFalse(hop.becomesGET)
        }
    }

    func testThatAGETStaysAGETWithOnlyUserAgentAndAccept() {
        var headers = HTTPHeaders()
        headers.add(name: "User-Agent", value: "ua")
        headers.add(name: "accept", value: "*/*")
        headers.add(name: "X-Custom", value: "1")
        headers.add(name: "Authorization", value: "Basic eA==")
        let hop = RedirectPolicy().hop(status: 302, method: "GET", from: here, to: sameHost)
        let kept = RedirectPolicy.headers(headers, for: hop)
        XCTAssertEqual(kept["User-Agent"], "ua")
        XCTAssertEqual(kept["Accept"], "*/*")
        XCTAssertNil(kept["X-Custom"])
        XCTAssertNil(kept["Authorization"], "rewritten hops drop the user's headers, credentials too")
    }

    func testThatA307KeepsTheUsersHeadersOnTheSameHost() {
        var headers = HTTPHeaders()
        headers.add(name: "X-Custom", value: "1")
        headers.add(name: "Authorization", value: "Basic eA==")
        headers.add(name: "Cookie", value: "a=b")
        let hop = RedirectPolicy().hop(status: 307, method: "POST", from: here, to: sameHost)
        XCTAssertFalse(hop.stripsCredentials)
        XCTAssertEqual(RedirectPolicy.headers(headers, for: hop), headers)
    }

    func testThatAHopToAnotherHostStripsAuthorizationAndCookie() {
        var headers = HTTPHeaders()
        headers.add(name: "X-Custom", value: "1")
        headers.add(name: "Authorization", value: "Basic eA==")
        headers.add(name: "Cookie", value: "a=b")
        let other = URL(string: "https://elsewhere.test/")!
        let hop = RedirectPolicy().hop(status: 307, method: "GET", from: here, to: other)
        XCTAssertTrue(hop.stripsCredentials)
        let kept = RedirectPolicy.headers(headers, for: hop)
        XCTAssertEqual(kept["X-Custom"], "1")
        XCTAssertNil(kept["Authorization"])
        XCTAssertNil(kept["Cookie"])
    }

    func testThatAHopToAnotherPortStripsCredentials() {
        let hop = RedirectPolicy().hop(
            status: 307, method: "GET", from: here, to: URL(string: "https://example.test:8443/")!)
        XCTAssertTrue(hop.stripsCredentials)
    }

    func testThatADowngradeFromHTTPSToHTTPStripsCredentials() {
        let hop = RedirectPolicy().hop(
            status: 307, method: "GET", from: here, to: URL(string: "http://example.test/")!)
        XCTAssertTrue(hop.stripsCredentials)
    }

    func testThatAnUpgradeToHTTPSOnTheDefaultPortsIsAnotherPort() {
        // http://h:80 and https://h:443 are different origins: credentials stay behind.
        let hop = RedirectPolicy().hop(
            status: 307, method: "GET", from: URL(string: "http://example.test/")!,
            to: URL(string: "https://example.test/")!)
        XCTAssertTrue(hop.stripsCredentials)
    }

    func testThatHostNamesAndSchemesCompareWithoutCase() {
        XCTAssertTrue(
            RedirectPolicy.isSameAuthority(
                URL(string: "HTTPS://Example.TEST/a")!, URL(string: "https://example.test:443/b")!))
    }

    func testThatSendingCredentialsAcrossRedirectsKeepsThemOnEveryHop() {
        let policy = RedirectPolicy(shouldSendCredentialsAcrossRedirects: true)
        let other = URL(string: "http://elsewhere.test/")!
        let hop = policy.hop(status: 307, method: "GET", from: here, to: other)
        XCTAssertFalse(hop.stripsCredentials)
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Basic eA==")
        XCTAssertEqual(RedirectPolicy.headers(headers, for: hop)["Authorization"], "Basic eA==")
    }

    func testThatARelativeLocationResolvesAgainstTheURLThatAnswered() {
        XCTAssertEqual(
            RedirectPolicy.target(of: "/root", from: here)?.absoluteString, "https://example.test/root")
        XCTAssertEqual(RedirectPolicy.target(of: "c", from: here)?.absoluteString, "https://example.test/a/c")
        XCTAssertEqual(
            RedirectPolicy.target(of: "//cdn.test/x", from: here)?.absoluteString, "https://cdn.test/x")
    }

    func testThatAnAbsoluteLocationIsTakenAsItIs() {
        XCTAssertEqual(
            RedirectPolicy.target(of: "http://other.test:81/p?q=1", from: here)?.absoluteString,
            "http://other.test:81/p?q=1")
    }

    func testThatAMissingEmptyOrMalformedLocationIsNoTarget() {
        XCTAssertNil(RedirectPolicy.target(of: nil, from: here))
        XCTAssertNil(RedirectPolicy.target(of: "", from: here), "it would redirect to itself")
        XCTAssertNil(RedirectPolicy.target(of: "http://[::1", from: here))
    }

    func testThatTheSixthRedirectIsOneTooManyByDefault() {
        let policy = RedirectPolicy()
        XCTAssertFalse(policy.exceedsLimit(count: 5))
        XCTAssertTrue(policy.exceedsLimit(count: 6))
        XCTAssertEqual(policy.limitMessage, "The request redirected more than 5 times")
    }

    func testThatMaxRedirectsZeroRefusesTheFirstRedirect() {
        let policy = RedirectPolicy(maxRedirects: 0)
        XCTAssertTrue(policy.exceedsLimit(count: 1))
        XCTAssertTrue(policy.limitMessage.contains("maxRedirects is 0"))
    }

    func testThatMaxRedirectsOneSaysOnce() {
        let policy = RedirectPolicy(maxRedirects: 1)
        XCTAssertFalse(policy.exceedsLimit(count: 1))
        XCTAssertTrue(policy.exceedsLimit(count: 2))
        XCTAssertEqual(policy.limitMessage, "The request redirected more than once")
    }

    func testThatAPolicyReadsTheRequestsSettings() {
        var config = makeConfiguration()
        config.shouldRedirect = false
        config.maxRedirects = 2
        config.shouldUseRFC2616RedirectBehaviour = true
        config.shouldSendCredentialsAcrossRedirects = true
        XCTAssertEqual(
            RedirectPolicy(config),
            RedirectPolicy(
                shouldRedirect: false, maxRedirects: 2, shouldUseRFC2616RedirectBehaviour: true,
                shouldSendCredentialsAcrossRedirects: true))
    }

    func testThatApplyingA302DropsThePOSTBodyAndTheRequestCookies() {
        var config = makeConfiguration()
        config.requestMethod = "POST"
        config.postBody = Data("x".utf8)
        config.requestCookies = [
            HTTPCookie(properties: [.name: "a", .value: "b", .domain: "example.test", .path: "/"])!
        ]
        HTTPRequest.apply(redirectTo: sameHost, status: 302, to: &config)
        XCTAssertEqual(config.requestMethod, "GET")
        XCTAssertNil(config.postBody)
        XCTAssertTrue(config.requestCookies.isEmpty)
        XCTAssertEqual(config.url, sameHost)
    }

    func testThatApplyingA307KeepsThePOSTBodyButNotTheRequestCookies() {
        var config = makeConfiguration()
        config.requestMethod = "POST"
        config.postBody = Data("x".utf8)
        config.requestCookies = [
            HTTPCookie(properties: [.name: "a", .value: "b", .domain: "example.test", .path: "/"])!
        ]
        HTTPRequest.apply(redirectTo: sameHost, status: 307, to: &config)
        XCTAssertEqual(config.requestMethod, "POST")
        XCTAssertEqual(config.postBody, Data("x".utf8))
        XCTAssertTrue(config.requestCookies.isEmpty, "only the jar's cookies follow a redirect")
    }

    private func makeConfiguration() -> RequestConfiguration {
        RequestConfiguration(url: here, timeOutSeconds: 10, callbackQueue: .global())
    }
}
