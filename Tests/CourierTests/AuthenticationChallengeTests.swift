import XCTest

@testable import Courier

/// Reading `WWW-Authenticate` and `Proxy-Authenticate` values into challenges.
final class AuthenticationChallengeTests: XCTestCase {
    func testThatAQuotedValueWithSpacesStaysInItsChallenge() throws {
        let challenges = AuthenticationChallenge.parse([
            "Digest qop=\"auth, auth-int\", realm=\"My Realm\", nonce=\"n\", Basic realm=\"Other One\""
        ])
        XCTAssertEqual(challenges.map(\.scheme), ["Digest", "Basic"])
        XCTAssertEqual(challenges.first?.parameters, ["qop": "auth, auth-int", "realm": "My Realm", "nonce": "n"])
        XCTAssertEqual(challenges.last?.realm, "Other One")
    }
}
