import Foundation

extension InteropServers {
    typealias StartedStrictTLS = (server: ChildServer, port: Int)

    /// `openssl s_server` with nginx's server certificate, requiring a client certificate signed
    /// by the client CA and ending the handshake with an alert without one (`-Verify 1`,
    /// `-verify_return_error`); `-www` answers each request with a status page.
    static func startStrictTLSServer(in directory: URL, nginx: NginxConfiguration) throws -> StartedStrictTLS {
        let openssl = try ExternalTool.locate("openssl")
        for attempt in 1...3 {
            let port = try LoopbackPort.free()
            let server = try ChildServer(
                name: "openssl-s_server", executable: openssl,
                arguments: [
                    "s_server", "-accept", "127.0.0.1:\(port)", "-cert", nginx.certificates.serverCertificate.path,
                    "-key", nginx.certificates.serverKey.path, "-CAfile", nginx.clientCertificates.clientCA.path,
                    "-Verify", "1", "-verify_return_error", "-www", "-quiet",
                ], directory: directory, stopSignal: SIGTERM)
            do {
                try server.waitUntilAccepting([port])
                return (server, port)
            } catch {
                server.stop()
                if attempt == 3 || !server.logTail().contains("in use") { throw error }
            }
        }
        preconditionFailure("unreachable: the last attempt returns or throws")
    }
}
