import Foundation
import XCTest

@testable import Courier

/// The session store's reuse rules (asi-api.md F.3), without sockets: what a request would be
/// offered before sending and after a challenge.
final class SessionCredentialStoreTests: XCTestCase {
    private let alice = StoredCredential(user: "alice", password: "wonderland")
    private let bob = StoredCredential(user: "bob", password: "builder")

    private func url(_ string: String) -> URL { URL(string: string)! }

    func testThatCredentialsAreOfferedToTheSameServerAndRealmOnly() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://example.test/private/a"), realm: "Staff", method: .basic)
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/other"))?.credential, alice)
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/other"), realm: "Staff")?.credential, alice)
        XCTAssertNil(store.bestMatch(for: url("http://example.test/other"), realm: "Board"), "another realm")
        XCTAssertNil(store.bestMatch(for: url("http://example.test:8080/private/a")), "another port")
        XCTAssertNil(store.bestMatch(for: url("https://example.test/private/a")), "another scheme")
        XCTAssertNil(store.bestMatch(for: url("http://other.test/private/a")), "another host")
        XCTAssertNil(store.bestMatch(for: url("http://sub.example.test/private/a")), "a subdomain is another host")
        XCTAssertNil(store.bestMatch(for: url("http://example.test/"), method: .digest), "another method")
    }

    func testThatANilPortAndTheDefaultPortAreTheSameServer() {
        // ASI's testNilPortCredentialsMatching: stored with ":80", asked without a port, and back.
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://Example.TEST:80/a"), realm: nil, method: nil)
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/a"))?.credential, alice)
        store.save(bob, for: url("https://secure.test/a"), realm: nil, method: nil)
        XCTAssertEqual(store.bestMatch(for: url("https://secure.test:443/b"))?.credential, bob)
        XCTAssertNil(store.bestMatch(for: url("https://secure.test:80/b")))
    }

    func testThatTheEntryForTheExactURLWinsOverANewerOneForTheServer() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://example.test/alice#top"), realm: "A", method: .basic)
        store.save(bob, for: url("http://example.test/bob"), realm: "B", method: .basic)
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/alice"))?.credential, alice)
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/elsewhere"))?.credential, bob, "the newest")
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/elsewhere"), realm: "A")?.credential, alice)
    }

    func testThatARequestsOwnCredentialsMustEqualTheStoredOnes() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://example.test/"), realm: "R", method: .digest)
        XCTAssertNil(store.bestMatch(for: url("http://example.test/"), requiring: bob))
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/"), requiring: alice)?.space.method, .digest)
    }

    func testThatASaveReplacesTheEntryOfTheSameSpace() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://example.test/a"), realm: "R", method: .basic)
        store.save(bob, for: url("http://example.test/a"), realm: "R", method: .basic)
        XCTAssertEqual(store.count.servers, 1)
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/a"))?.credential, bob)
    }

    func testThatRejectedCredentialsAreRemovedAndOthersStay() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://example.test/a"), realm: "A", method: .basic)
        store.save(bob, for: url("http://example.test/b"), realm: "B", method: .basic)
        store.save(alice, for: url("http://other.test/a"), realm: "A", method: .basic)
        store.removeRejected(alice, for: url("http://example.test/anything"), realm: "A")
        XCTAssertNil(store.bestMatch(for: url("http://example.test/a"), realm: "A"))
        XCTAssertEqual(store.bestMatch(for: url("http://example.test/a"))?.credential, bob)
        XCTAssertEqual(store.bestMatch(for: url("http://other.test/a"))?.credential, alice, "another host keeps it")
        store.removeRejected(bob, for: url("http://nowhere.test/"))  // nothing there: nothing happens
        XCTAssertEqual(store.count.servers, 2)
    }

    func testThatProxyCredentialsAreKeptApartAndKeyedByHostPortAndRealm() {
        let store = SessionCredentialStore()
        store.saveProxy(alice, host: "Proxy.test", port: 3128, realm: "Squid", method: .basic)
        XCTAssertEqual(store.bestProxyMatch(host: "proxy.test", port: 3128)?.credential, alice)
        XCTAssertEqual(store.bestProxyMatch(host: "proxy.test", port: 3128, realm: "Squid")?.credential, alice)
        XCTAssertNil(store.bestProxyMatch(host: "proxy.test", port: 3129))
        XCTAssertNil(store.bestProxyMatch(host: "proxy.test", port: 3128, realm: "Other"))
        XCTAssertNil(store.bestMatch(for: url("http://proxy.test:3128/")), "a proxy entry is no server entry")
        store.removeRejectedProxy(alice, host: "PROXY.test", port: 3128)
        XCTAssertNil(store.bestProxyMatch(host: "proxy.test", port: 3128))
    }

    func testThatClearForgetsServersAndProxies() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("http://example.test/"), realm: nil, method: nil)
        store.saveProxy(bob, host: "proxy.test", port: 8080, realm: nil, method: nil)
        store.clear()
        XCTAssertEqual(store.count.servers, 0)
        XCTAssertEqual(store.count.proxies, 0)
        XCTAssertNil(store.bestMatch(for: url("http://example.test/")))
    }

    func testThatConcurrentSavesAndLookupsAreSafe() {
        let store = SessionCredentialStore()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            let credential = StoredCredential(user: "user\(index)", password: "p")
            store.save(credential, for: URL(string: "http://host\(index % 10).test/")!, realm: "\(index)", method: nil)
            _ = store.bestMatch(for: URL(string: "http://host\(index % 10).test/")!)
        }
        XCTAssertEqual(store.count.servers, 200)
    }

    func testThatNonHTTPURLsAreNeverStoredOrMatched() {
        let store = SessionCredentialStore()
        store.save(alice, for: url("ftp://example.test/"), realm: nil, method: nil)
        XCTAssertEqual(store.count.servers, 0)
        XCTAssertNil(store.bestMatch(for: url("ftp://example.test/")))
    }

    func testThatTheMethodTokenIsReadWithoutRegardToCase() {
        XCTAssertEqual(AuthenticationMethod(token: "basic"), .basic)
        XCTAssertEqual(AuthenticationMethod(token: "DIGEST"), .digest)
        XCTAssertEqual(AuthenticationMethod(token: "ntlm"), .ntlm)
        XCTAssertNil(AuthenticationMethod(token: "Negotiate"))
    }
}
