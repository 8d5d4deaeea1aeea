import XCTest

@testable import Courier

/// One request at a time asks for one server's (or proxy's) credentials, and a request that
/// looked in the stores before another finished asking looks again instead of asking twice.
final class CredentialPromptsTests: XCTestCase {
    private let prompts = CredentialPrompts()
    private let key = CredentialPrompts.Key(isProxy: false, host: "127.0.0.1", port: 8080, realm: "Courier")

    func testThatTheFirstRequestAsksAndTheNextWaitsForIt() {
        let first = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        let second = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        let answers = prompts.answersSoFar(key)
        XCTAssertEqual(prompts.begin(key, for: first, lookedUpAfter: answers), .ask)
        XCTAssertEqual(prompts.begin(key, for: first, lookedUpAfter: answers), .ask, "the asker asks again")
        XCTAssertEqual(prompts.begin(key, for: second, lookedUpAfter: answers), .wait)
        XCTAssertTrue(prompts.finish(key, for: first).first === second, "the waiting request is handed back")
        XCTAssertEqual(prompts.answersSoFar(key), answers + 1)
    }

    /// The race the TSan run found: a request looked in the session store (empty), then the
    /// asker finished and saved what it was told, then the request found nobody asking. It
    /// asked the delegate a second time; now it looks again.
    func testThatARequestThatLookedBeforeAnotherFinishedAskingLooksAgainInsteadOfAsking() {
        let first = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        let late = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        let lookedUpAfter = prompts.answersSoFar(key)
        XCTAssertEqual(prompts.begin(key, for: first, lookedUpAfter: lookedUpAfter), .ask)
        XCTAssertTrue(prompts.finish(key, for: first).isEmpty)
        XCTAssertEqual(prompts.begin(key, for: late, lookedUpAfter: lookedUpAfter), .lookAgain)
        XCTAssertEqual(
            prompts.begin(key, for: late, lookedUpAfter: prompts.answersSoFar(key)), .ask,
            "having looked again and found nothing, it asks")
    }

    func testThatAnotherServerOrRealmIsAskedForApart() {
        let first = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        let other = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        var otherRealm = key
        otherRealm.realm = "Other"
        XCTAssertEqual(prompts.begin(key, for: first, lookedUpAfter: 0), .ask)
        XCTAssertEqual(prompts.begin(otherRealm, for: other, lookedUpAfter: 0), .ask)
    }

    func testThatACancelledWaiterIsNotHandedBack() {
        let first = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        let waiter = HTTPRequest(url: URL(string: "http://127.0.0.1:8080/")!)
        XCTAssertEqual(prompts.begin(key, for: first, lookedUpAfter: 0), .ask)
        XCTAssertEqual(prompts.begin(key, for: waiter, lookedUpAfter: 0), .wait)
        prompts.stopWaiting(waiter)
        XCTAssertTrue(prompts.finish(key, for: first).isEmpty)
    }
}
