import Courier
import CourierTestSupport
import Foundation
import XCTest

/// TLS client certificates against real nginx (which finishes the handshake and answers 400 to a
/// missing or untrusted certificate) and `openssl s_server` (which refuses them in the handshake),
/// with identities made by openssl for the run (`ClientTestCertificates`).
final class ClientCertificateInteropTests: XCTestCase {
    private func request(
        _ base: KeyPath<InteropServers, URL>, _ certificate: ClientCertificate?, path: String = "/whoami"
    ) throws -> HTTPRequest {
        let servers = try InteropServers.shared
        let request = HTTPRequest(url: URL(string: servers[keyPath: base].absoluteString + path)!)
        request.caBundlePath = servers.caBundlePath
        request.clientCertificate = certificate
        request.timeOutSeconds = 10
        return request
    }

    private var identityA: ClientCertificate {
        get throws {
            let certificates = try InteropServers.shared.clientCertificates
            return .pem(
                certificatePath: certificates.certificateA.path, keyPath: certificates.keyA.path,
                password: certificates.passwordA)
        }
    }

    private var identityB: ClientCertificate {
        get throws {
            let certificates = try InteropServers.shared.clientCertificates
            return .pkcs12(path: certificates.bundleB.path, password: certificates.passwordB)
        }
    }

    private func run(_ request: HTTPRequest) -> ClientIdentity? {
        request.startSynchronous()
        XCTAssertNil(request.error)
        return ClientIdentity(request)
    }

    func testThatAPEMCertificateWithAnEncryptedKeyIsAccepted() throws {
        let seen = run(try request(\.clientCertificateHTTPS, try identityA))
        XCTAssertEqual(seen?.verify, "SUCCESS")
        XCTAssertEqual(seen?.subject, ClientTestCertificates.subjectA)
        XCTAssertNil(try request(\.clientCertificateHTTPS, nil).clientCertificate, "none unless set")
    }

    func testThatAPKCS12BundleIsAccepted() throws {
        let seen = run(try request(\.clientCertificateHTTPS, try identityB))
        XCTAssertEqual(seen?.verify, "SUCCESS")
        XCTAssertEqual(seen?.subject, ClientTestCertificates.subjectB)
    }

    func testThatTheServerCertificateIsStillVerifiedWithAClientCertificate() throws {
        let untrusted = try request(\.clientCertificateHTTPS, try identityA)
        untrusted.caBundlePath = nil
        untrusted.startSynchronous()
        XCTAssertEqual(untrusted.error?.type, .connectionFailure)
        XCTAssertEqual(untrusted.error?.curlCode, 60, "\(String(describing: untrusted.error))")
        XCTAssertTrue(untrusted.error?.message.contains("TLS") ?? false)
    }

    func testThatNginxAnswers400WithoutACertificateOrWithARogueOne() throws {
        let servers = try InteropServers.shared
        let none = try request(\.clientCertificateHTTPS, nil)
        none.startSynchronous()
        XCTAssertNil(none.error)
        XCTAssertEqual(none.responseStatusCode, 400)
        XCTAssertTrue(none.responseString()?.contains("No required SSL certificate was sent") ?? false)

        let rogue = try request(\.clientCertificateHTTPS, .pem(certificatePath: servers.clientCertificates.rogue.path))
        rogue.startSynchronous()
        XCTAssertNil(rogue.error)
        XCTAssertEqual(rogue.responseStatusCode, 400)
        XCTAssertTrue(rogue.responseString()?.contains("The SSL certificate error") ?? false)
        // It was presented (key in the certificate's file), and found untrusted.
        let optional = try request(
            \.optionalClientCertificateHTTPS, .pem(certificatePath: servers.clientCertificates.rogue.path))
        optional.startSynchronous()
        XCTAssertEqual(optional.responseStatusCode, 400)
    }

    func testThatAServerRefusingTheCertificateInTheHandshakeFailsSayingSo() throws {
        let servers = try InteropServers.shared
        let accepted = try request(\.strictClientCertificateHTTPS, try identityA, path: "/")
        accepted.startSynchronous()
        XCTAssertNil(accepted.error)
        XCTAssertEqual(accepted.responseStatusCode, 200)

        let none = try request(\.strictClientCertificateHTTPS, nil, path: "/")
        none.startSynchronous()
        XCTAssertEqual(none.error?.type, .connectionFailure)
        let noneMessage = none.error?.message ?? ""
        XCTAssertTrue(noneMessage.contains("requires a client certificate, and the request has none"), noneMessage)

        let rogue = try request(
            \.strictClientCertificateHTTPS, .pem(certificatePath: servers.clientCertificates.rogue.path), path: "/")
        rogue.startSynchronous()
        XCTAssertEqual(rogue.error?.type, .connectionFailure)
        let rogueMessage = rogue.error?.message ?? ""
        XCTAssertTrue(
            rogueMessage.contains("the server refused the client certificate \(servers.clientCertificates.rogue.path)"),
            rogueMessage)
        XCTAssertTrue(rogueMessage.contains("unknown ca"), rogueMessage)
    }

    func testThatAWrongOrMissingPasswordFailsSayingSo() throws {
        let certificates = try InteropServers.shared.clientCertificates
        let cases: [(ClientCertificate, String)] = [
            (
                .pem(
                    certificatePath: certificates.certificateA.path, keyPath: certificates.keyA.path, password: "nope"),
                "wrong password for the key \(certificates.keyA.path)"
            ),
            // Never asked on the terminal ("Enter PEM pass phrase:"): it fails at once.
            (
                .pem(certificatePath: certificates.certificateA.path, keyPath: certificates.keyA.path),
                "the key \(certificates.keyA.path) is encrypted and needs a password, and none was given"
            ),
            (
                .pkcs12(path: certificates.bundleB.path, password: "nope"),
                "wrong password for the PKCS#12 file \(certificates.bundleB.path)"
            ),
            (
                .pkcs12(path: certificates.bundleB.path),
                "the PKCS#12 file \(certificates.bundleB.path) needs a password, and none was given"
            ),
        ]
        for (certificate, expected) in cases {
            let failing = try request(\.clientCertificateHTTPS, certificate)
            failing.startSynchronous()
            XCTAssertEqual(failing.error?.type, .connectionFailure, "\(certificate)")
            XCTAssertEqual(failing.error?.curlCode, 58, "CURLE_SSL_CERTPROBLEM for \(certificate)")
            let message = failing.error?.message ?? ""
            XCTAssertTrue(message.contains("TLS client certificate problem: " + expected), message)
        }
    }

    func testThatAMissingFileFailsNamingItBeforeAnythingIsSent() throws {
        let servers = try InteropServers.shared
        let certificates = servers.clientCertificates
        let missing = servers.directory.appendingPathComponent("no-such-client.pem").path
        let cases: [(ClientCertificate, String)] = [
            (.pem(certificatePath: missing, password: "x"), "The client certificate file \(missing) does not exist"),
            (
                .pem(certificatePath: certificates.certificateA.path, keyPath: missing),
                "The client certificate key file \(missing) does not exist"
            ),
            (.pkcs12(path: missing), "The PKCS#12 client certificate file \(missing) does not exist"),
            (
                .pkcs12(path: servers.directory.path),
                "The PKCS#12 client certificate file \(servers.directory.path) is a directory"
            ),
        ]
        let path = "/missing-\(UUID().uuidString)"
        for (certificate, expected) in cases {
            let failing = try request(\.clientCertificateHTTPS, certificate, path: path)
            failing.startSynchronous()
            XCTAssertEqual(failing.error?.type, .internalErrorWhileBuildingRequest)
            XCTAssertEqual(failing.error?.message, expected)
        }
        // A request that reached nginx would be logged by now: the next one is.
        let sent = run(try request(\.clientCertificateHTTPS, try identityA, path: path))
        XCTAssertNotNil(sent)
        XCTAssertEqual(servers.accessLog(waitingFor: 1) { $0.uri == path }.count, 1)
    }

    func testThatNoConnectionIsReusedAcrossIdentities() throws {
        let identities: [ClientCertificate?] = [nil, try identityA, try identityB, nil, try identityA]
        let seen = try identities.map { run(try request(\.optionalClientCertificateHTTPS, $0)) }
        XCTAssertEqual(
            seen.map { $0?.subject },
            ["", ClientTestCertificates.subjectA, ClientTestCertificates.subjectB, "", ClientTestCertificates.subjectA])
        XCTAssertEqual(seen.map { $0?.verify }, ["NONE", "SUCCESS", "SUCCESS", "NONE", "SUCCESS"])
        let connections = seen.map { $0?.connection }
        XCTAssertEqual(Set(connections[0..<3]).count, 3, "one connection per identity: \(connections)")
        // Each identity's own connection is kept and reused.
        XCTAssertEqual(connections[3], connections[0], "\(connections)")
        XCTAssertEqual(connections[4], connections[1], "\(connections)")
    }

    func testThatNoTLSSessionIsResumedAcrossIdentities() throws {
        // Every request on a connection of its own: only the TLS session cache links them.
        let identities: [ClientCertificate?] = [try identityA, try identityA, nil, try identityB, nil, try identityA]
        let seen = try identities.map { identity -> ClientIdentity? in
            let request = try request(\.optionalClientCertificateHTTPS, identity)
            request.shouldAttemptPersistentConnection = false
            return run(request)
        }
        let (a, b) = (ClientTestCertificates.subjectA, ClientTestCertificates.subjectB)
        XCTAssertEqual(seen.map { $0?.subject }, [a, a, "", b, "", a])
        // Sessions are resumed (nginx then names the certificate of the session's first
        // handshake), but only with the identity they were made with: the subjects above.
        XCTAssertTrue(seen.contains { $0?.sessionWasResumed == true }, "no session resumed: the test proves nothing")
    }
}
