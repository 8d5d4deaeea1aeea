import Courier
import CourierTestServer
import Foundation
import XCTest

/// Hostile TLS set-ups against the real TLS front (nginx, openssl s_server): an https page that
/// redirects to plain http keeps its credentials and cookies, and certificate checks are on by
/// default.
final class HostileRedirectInteropTests: FreshSessionTestCase {
    // MARK: - No credentials from https to http (curl CVE-2018-1000007, requests CVE-2018-18074;
    // CWE-319 cleartext transmission, CWE-200 exposure)

    func testThatCredentialsAndCookiesDoNotFollowFromHTTPSToHTTP() throws {
        let servers = try InteropServers.shared
        let plain = try TestServer()
        defer { plain.stop() }
        for status in [302, 307, 308] {
            plain.resetRecords()
            let target = "http://localhost:\(plain.port)/echo"
            let request = HTTPRequest(url: servers.redirectURL(status: status, to: target, secure: true))
            request.caBundlePath = servers.caBundlePath
            request.addRequestHeader("Authorization", value: "Bearer tls-only")
            request.addRequestHeader("Cookie", value: "header=tls-only")
            request.requestCookies = [
                HTTPCookie(properties: [.name: "mine", .value: "tls-only", .domain: "localhost", .path: "/"])!
            ]
            request.startSynchronous()
            XCTAssertNil(request.error, "\(status)")
            XCTAssertEqual(request.url.absoluteString, target, "the redirect was followed")
            let sent = try XCTUnwrap(plain.recordedRequests.first, "\(status)")
            XCTAssertNil(sent.header("Authorization"), "\(status)")
            XCTAssertFalse(sent.headers(named: "Cookie").joined().contains("tls-only"), "\(status): \(sent.headers)")
        }

        // username/password, sent before any challenge over TLS, do not answer the http host's.
        plain.resetRecords()
        let challenge = plain.url(.basicAuth(user: "u", password: "p")).absoluteString
        let configured = HTTPRequest(url: servers.redirectURL(status: 307, to: challenge, secure: true))
        configured.caBundlePath = servers.caBundlePath
        configured.username = "u"
        configured.password = "p"
        configured.authenticationScheme = "basic"
        configured.useSessionPersistence = false
        configured.startSynchronous()
        XCTAssertEqual(configured.error?.type, .authentication)
        XCTAssertEqual(plain.authorizations(for: .basicAuth(user: "u", password: "p")).compactMap { $0 }, [])
    }

    // MARK: - Certificate checks on by default (CWE-295 improper certificate validation)

    func testThatAnUnknownCAFailsByDefaultAndPassesOnlyWhenTrustedOrUnchecked() throws {
        let servers = try InteropServers.shared
        let url = servers.nginxURL("/status/200", secure: true)
        let fresh = HTTPRequest(url: url)
        XCTAssertTrue(fresh.validatesSecureCertificate, "on by default")
        fresh.startSynchronous()
        assertCertificateFailure(fresh, "a CA the system does not know")

        let trusted = HTTPRequest(url: url)
        trusted.caBundlePath = servers.caBundlePath
        trusted.startSynchronous()
        XCTAssertNil(trusted.error)
    }

    func testThatACertificateForAnotherNameFails() throws {
        let servers = try InteropServers.shared
        // *.localhost is loopback to libcurl; nginx's certificate names only localhost and 127.0.0.1.
        let port = try XCTUnwrap(servers.nginxHTTPS.port)
        let request = HTTPRequest(url: URL(string: "https://wrong.localhost:\(port)/status/200")!)
        request.caBundlePath = servers.caBundlePath
        request.startSynchronous()
        assertCertificateFailure(request, "a certificate for another host name")

        let unchecked = HTTPRequest(url: URL(string: "https://wrong.localhost:\(port)/status/200")!)
        unchecked.validatesSecureCertificate = false
        unchecked.startSynchronous()
        XCTAssertNil(unchecked.error, "only when the user turns the check off")
    }

    func testThatASelfSignedCertificateFailsUnlessTrusted() throws {
        let servers = try InteropServers.shared
        let directory = servers.directory.appendingPathComponent("self-signed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let openssl = try ExternalTool.locate("openssl")
        let certificate = directory.appendingPathComponent("self.pem").path
        let key = directory.appendingPathComponent("self.key").path
        _ = try ExternalTool.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ], in: directory)
        let port = try LoopbackPort.free()
        let server = try ChildServer(
            name: "openssl-self-signed", executable: openssl,
            arguments: [
                "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www", "-quiet",
            ],
            directory: directory, stopSignal: SIGTERM)
        defer { server.stop() }
        try server.waitUntilAccepting([port])
        let url = URL(string: "https://localhost:\(port)/")!

        let fresh = HTTPRequest(url: url)
        fresh.shouldAttemptPersistentConnection = false
        fresh.startSynchronous()
        assertCertificateFailure(fresh, "a self-signed certificate")

        let trusted = HTTPRequest(url: url)
        trusted.shouldAttemptPersistentConnection = false
        trusted.caBundlePath = certificate
        trusted.startSynchronous()
        XCTAssertNil(trusted.error, "trusted through caBundlePath")
        XCTAssertEqual(trusted.responseStatusCode, 200)
    }

    private func assertCertificateFailure(
        _ request: HTTPRequest, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(request.error?.type, .connectionFailure, what, file: file, line: line)
        let message = request.error?.message ?? ""
        XCTAssertTrue(
            message.contains("TLS") || message.contains("certificate"), "\(what): \(message)", file: file, line: line)
        XCTAssertEqual(request.responseStatusCode, 0, "\(what): no response was read", file: file, line: line)
    }
}
