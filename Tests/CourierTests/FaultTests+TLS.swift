import Courier
import CourierTestServer
import CourierTestSupport
import Glibc
import XCTest

/// TLS handshakes that fail: a peer that answers the ClientHello with plain text, and a peer
/// whose certificate is for another host. Both are connection failures whose message says TLS.
extension FaultTests {
    func testThatATLSPeerThatAnswersGarbageFailsOnceEverywhere() throws {
        let peer = try GarbagePeer(reply: "HTTP/1.1 400 Bad Request\r\nContent-Length: 7\r\n\r\nnot TLS")
        defer { peer.stop() }
        let url = try XCTUnwrap(URL(string: "https://127.0.0.1:\(peer.port)/file"))
        try assertOneFailureEverywhere(url, .connectionFailure)
        let (request, _) = try assertOneFailure(url, .connectionFailure)
        XCTAssertEqual(request.error?.curlCode, 35, "CURLE_SSL_CONNECT_ERROR: \(String(describing: request.error))")
        XCTAssertTrue(request.error?.message.contains("TLS") ?? false, String(describing: request.error))
    }

    /// A certificate the CA bundle trusts, but for `wrong.example`, served by `openssl s_server`
    /// on 127.0.0.1: the host check refuses it (CWE-297, improper validation of a certificate
    /// with host mismatch).
    func testThatACertificateForAnotherHostFailsOnceEverywhere() throws {
        let directory = try makeTemporaryDirectory("courier-tls-fault")
        let certificate = directory.appendingPathComponent("wrong-host.pem").path
        let key = directory.appendingPathComponent("wrong-host.key").path
        try runOpenSSL([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", key, "-out", certificate,
            "-subj", "/CN=wrong.example", "-addext", "subjectAltName=DNS:wrong.example",
        ])
        let port = try XCTUnwrap(Fixture.refusedURL.port)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        server.arguments = ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-www"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        waitUntil(timeout: 10, message: "openssl s_server listens") {
            Reachability(host: "127.0.0.1", port: port).isReachable
        }
        let url = try XCTUnwrap(URL(string: "https://127.0.0.1:\(port)/"))
        let trustTheCertificate: (HTTPRequest) -> Void = { $0.caBundlePath = certificate }
        try assertOneFailureEverywhere(url, .connectionFailure, configure: trustTheCertificate)
        let (request, _) = try assertOneFailure(url, .connectionFailure, configure: trustTheCertificate)
        XCTAssertEqual(
            request.error?.curlCode, 60, "CURLE_PEER_FAILED_VERIFICATION: \(String(describing: request.error))")
        XCTAssertTrue(request.error?.message.contains("TLS") ?? false, String(describing: request.error))
    }

    private func runOpenSSL(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "openssl \(arguments.first ?? "")")
    }
}

/// A loopback TCP peer that answers every connection with `reply` once the client has spoken,
/// then closes: what a client meets when it speaks TLS to a port that does not.
final class GarbagePeer: @unchecked Sendable {
    // @unchecked Sendable: `fd` and `port` never change after init; the accept thread only reads them.
    let port: Int
    private let fd: Int32
    private let reply: [UInt8]

    init(reply: String) throws {
        self.reply = Array(reply.utf8)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    private func serve() {
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }  // stop() shut the listener down
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(client, &buffer, buffer.count, 0)
            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }
    }

    /// Stops accepting; the accept thread ends.
    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
