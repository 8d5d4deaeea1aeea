import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// The NTLM route against curl's real NTLM handshake (libcurl 7.88, NTLMv2 responses).
final class NTLMRouteTests: ServerTestCase {
    private let route = Route.ntlmAuth(user: "nina", password: "Pa55word", domain: "ACME")

    func testCurlCompletesTheHandshakeOnOneConnection() throws {
        XCTAssertEqual(Route(path: route.path), route)
        let result = try CurlClient.run(["--ntlm", "-u", "ACME\\nina:Pa55word", server.url(route).absoluteString])
        XCTAssertEqual(result.statuses, [401, 200])
        XCTAssertEqual(result.header("X-Courier-Auth-Scheme"), "NTLM")
        XCTAssertTrue(result.body.hasPrefix("You are nina from ACME/"), result.body)
        XCTAssertGreaterThan(result.body.count, "You are nina from ACME/".count, "the workstation is named")
        let requests = server.recordedRequests(for: route)
        XCTAssertEqual(requests.count, 2)
        XCTAssertEqual(Set(requests.map(\.connectionID)).count, 1, "type 1 and type 3 on one connection")
        XCTAssertTrue(requests.allSatisfy { $0.header("Authorization")?.hasPrefix("NTLM ") ?? false })
        XCTAssertEqual(server.challengesSent(for: route), 1)
        XCTAssertEqual(result.connects, 1)
    }

    func testWrongPasswordUserOrDomainIsRefused() throws {
        for credentials in ["ACME\\nina:wrong", "ACME\\other:Pa55word", "EVIL\\nina:Pa55word"] {
            let result = try CurlClient.run(["--ntlm", "-u", credentials, server.url(route).absoluteString])
            XCTAssertEqual(result.status, 401, credentials)
            XCTAssertEqual(result.header("WWW-Authenticate"), "NTLM", credentials)
            XCTAssertTrue(result.body.hasPrefix("credentials refused"), "\(credentials): \(result.body)")
        }
    }

    func testTheHandshakeSteps() throws {
        let raw = try RawHTTPClient(port: server.port)
        let none = try raw.request("GET", route.path)
        XCTAssertEqual(none.status, 401)
        XCTAssertEqual(none.header("WWW-Authenticate"), "NTLM")
        // A Type 1 (flags: Unicode, OEM, request target, NTLM, always sign) gets a Type 2.
        let type1 = Data(Array("NTLMSSP".utf8) + [0, 1, 0, 0, 0, 0x07, 0x82, 0x00, 0x00])
        let challenged = try raw.request(
            "GET", route.path, headers: ["Authorization: NTLM " + type1.base64EncodedString()])
        XCTAssertEqual(challenged.status, 401)
        let type2 = try XCTUnwrap(
            challenged.header("WWW-Authenticate").flatMap { Data(base64Encoded: String($0.dropFirst(5))) })
        XCTAssertEqual(Array(type2.prefix(12)), Array("NTLMSSP".utf8) + [0, 2, 0, 0, 0])
        let flags = type2[20...23].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        XCTAssertEqual(flags & 0x0088_0001, 0x0088_0001, "Unicode, NTLM2 key and target info")
        // A Type 3 on another connection has no challenge to answer.
        let other = try RawHTTPClient(port: server.port)
        let type3 = Data(Array("NTLMSSP".utf8) + [0, 3, 0, 0, 0] + [UInt8](repeating: 0, count: 52))
        let stray = try other.request(
            "GET", route.path, headers: ["Authorization: NTLM " + type3.base64EncodedString()])
        XCTAssertEqual(stray.status, 401)
        XCTAssertEqual(stray.text, "credentials refused: no NTLM challenge on this connection")
    }
}
