import Foundation
import Synchronization
import XCTest

/// Real servers for the interop tests, on loopback, started once per test process on first use
/// and stopped when the test bundle finishes: nginx (plain HTTP, and TLS with HTTP/2, from a
/// certificate authority made for the run) and httpbin under gunicorn.
///
/// ```swift
/// let servers = try InteropServers.shared
/// let file = try servers.makeFile(named: "a.bin", size: 1024)
/// let request = HTTPRequest(url: servers.nginxURL("/files/a.bin"))
/// ```
///
/// nginx serves, on both listeners:
/// - `/files/NAME`: ``docroot``, gzip off, so Range requests get 206;
/// - `/gzip/NAME`: the same files, gzipped when the request has `Accept-Encoding: gzip` (nginx then
///   ignores Range);
/// - `/upload/NAME`: WebDAV `PUT` (any size, missing directories made) and `DELETE` into
///   ``uploads``, `GET` to read back;
/// - `/redirect/301`, `302`, `303`, `307`, `308` `?to=URL`: that status with `Location: URL`
///   (``redirectURL(status:to:secure:)``);
/// - `/status/NNN` for the codes in `NginxConfiguration.statusCodes`.
///
/// Every request nginx answers is in ``accessLog()``.
final class InteropServers: Sendable {
    /// nginx's plain HTTP listener: `http://127.0.0.1:PORT`.
    let nginxHTTP: URL
    /// nginx's TLS listener, HTTP/2 by ALPN: `https://localhost:PORT`, certificate from ``caBundlePath``.
    let nginxHTTPS: URL
    /// httpbin under gunicorn: `http://127.0.0.1:PORT`.
    let httpbin: URL
    /// nginx's TLS listener that requires a client certificate from ``clientCertificates``:
    /// `https://localhost:PORT`; every path answers who nginx saw (see ``ClientIdentity``).
    let clientCertificateHTTPS: URL
    /// The same with the client certificate optional.
    let optionalClientCertificateHTTPS: URL
    /// `openssl s_server` requiring a client certificate from ``clientCertificates``, which,
    /// unlike nginx, refuses a missing or untrusted one in the TLS handshake:
    /// `https://localhost:PORT`, HTTP/1.0, one connection at a time.
    let strictClientCertificateHTTPS: URL
    /// The client CA and identities the client-certificate listeners know.
    let clientCertificates: ClientTestCertificates
    /// The PEM certificate of the CA that signed nginx's certificate (for `localhost` and `127.0.0.1`).
    let caBundlePath: String
    /// The directory `/files/` and `/gzip/` serve (``makeFile(named:size:)`` writes here).
    let docroot: URL
    /// The directory `PUT /upload/…` writes into.
    let uploads: URL
    /// The temporary directory that holds everything: configuration, certificates, logs.
    let directory: URL
    /// nginx's access log: one JSON object per request.
    let accessLogURL: URL

    private let group: ServerGroup

    /// The servers, started by the first caller in this process.
    /// - Throws: the reason they could not start (a missing program names itself and
    ///   `scripts/setup.sh`); every later caller gets the same error, so every interop test fails
    ///   with it rather than being skipped.
    static var shared: InteropServers {
        get throws { try started.get() }
    }

    private static let started = Result { () throws -> InteropServers in
        let servers = try InteropServers.start()
        servers.group.stopWhenTheBundleFinishes()
        return servers
    }

    private typealias StartedNginx = (server: ChildServer, configuration: NginxConfiguration)
    private typealias StartedHTTPBin = (server: ChildServer, port: Int)

    private init(
        nginx: StartedNginx, httpbin: StartedHTTPBin, strictTLS: StartedStrictTLS, directory: URL,
        watchdog: ServerWatchdog
    ) {
        let configuration = nginx.configuration
        nginxHTTP = URL(string: "http://127.0.0.1:\(configuration.httpPort)")!
        nginxHTTPS = URL(string: "https://localhost:\(configuration.httpsPort)")!
        self.httpbin = URL(string: "http://127.0.0.1:\(httpbin.port)")!
        clientCertificateHTTPS = URL(string: "https://localhost:\(configuration.clientCertificatePort)")!
        let optionalPort = configuration.optionalClientCertificatePort
        optionalClientCertificateHTTPS = URL(string: "https://localhost:\(optionalPort)")!
        strictClientCertificateHTTPS = URL(string: "https://localhost:\(strictTLS.port)")!
        clientCertificates = configuration.clientCertificates
        caBundlePath = configuration.certificates.caCertificate.path
        docroot = configuration.docroot
        uploads = configuration.uploads
        accessLogURL = configuration.accessLog
        self.directory = directory
        group = ServerGroup(
            servers: [nginx.server, httpbin.server, strictTLS.server], watchdog: watchdog, directory: directory)
    }

    /// Stops the servers and removes ``directory``. Called when the test bundle finishes; safe to
    /// call more than once.
    func stop() {
        group.stop()
    }

    // MARK: - Starting

    private static func start() throws -> InteropServers {
        // Find every program first, so a missing one is named before anything starts.
        let nginx = try ExternalTool.locate("nginx")
        let gunicorn = try ExternalTool.locateGunicorn()
        let directory = try makeTemporaryDirectory()
        var started: [ChildServer] = []
        do {
            let nginxServer = try startNginx(nginx, in: directory)
            started.append(nginxServer.server)
            let httpbinServer = try startHTTPBin(gunicorn, in: directory)
            started.append(httpbinServer.server)
            let strictTLS = try startStrictTLSServer(in: directory, nginx: nginxServer.configuration)
            started.append(strictTLS.server)
            let watchdog = try ServerWatchdog(pids: started.map(\.pid), directory: directory)
            return InteropServers(
                nginx: nginxServer, httpbin: httpbinServer, strictTLS: strictTLS, directory: directory,
                watchdog: watchdog)
        } catch {
            for server in started { server.stop() }
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// A new directory only this user can read, under `$TMPDIR` (or /tmp).
    static func makeTemporaryDirectory() throws -> URL {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("courier-interop-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw InteropServersError.system("mkdtemp(\(template))", errno: errno) }
        return URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }

    /// How many times a server is started on fresh ports when it fails: another program can
    /// take a port between ``LoopbackPort/free()`` and the server's bind.
    private static let attempts = 3

    private static func startNginx(_ nginx: URL, in directory: URL) throws -> StartedNginx {
        let docroot = directory.appendingPathComponent("docroot", isDirectory: true)
        let uploads = directory.appendingPathComponent("uploads", isDirectory: true)
        try FileManager.default.createDirectory(at: docroot, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
        let certificates = try TestCertificates(in: directory)
        let clientCertificates = try ClientTestCertificates(in: directory)
        let configurationFile = directory.appendingPathComponent("nginx.conf")
        let errorLog = directory.appendingPathComponent("error.log")
        for attempt in 1...attempts {
            let configuration = NginxConfiguration(
                httpPort: try LoopbackPort.free(), httpsPort: try LoopbackPort.free(),
                clientCertificatePort: try LoopbackPort.free(), optionalClientCertificatePort: try LoopbackPort.free(),
                directory: directory,
                docroot: docroot, uploads: uploads, accessLog: directory.appendingPathComponent("access.log"),
                certificates: certificates, clientCertificates: clientCertificates)
            try configuration.text.write(to: configurationFile, atomically: true, encoding: .utf8)
            try NginxConfiguration.htpasswdText.write(
                to: directory.appendingPathComponent("htpasswd"), atomically: true, encoding: .utf8)
            // -e: the log for errors before the configuration is read (Debian's default is stderr,
            // other builds' is under /var/log).
            let server = try ChildServer(
                name: "nginx", executable: nginx,
                arguments: ["-c", configurationFile.path, "-p", directory.path + "/", "-e", errorLog.path],
                directory: directory, errorLogURL: errorLog, stopSignal: SIGTERM)
            do {
                try server.waitUntilAccepting([
                    configuration.httpPort, configuration.httpsPort, configuration.clientCertificatePort,
                    configuration.optionalClientCertificatePort,
                ])
                return (server, configuration)
            } catch {
                server.stop()
                if attempt == attempts || !server.logTail().contains("in use") { throw error }
            }
        }
        preconditionFailure("unreachable: the last attempt returns or throws")
    }

    private static func startHTTPBin(_ gunicorn: URL, in directory: URL) throws -> StartedHTTPBin {
        for attempt in 1...attempts {
            let port = try LoopbackPort.free()
            let server = try ChildServer(
                name: "gunicorn", executable: gunicorn,
                arguments: [
                    "--bind", "127.0.0.1:\(port)", "--workers", "2", "--threads", "4", "--worker-class", "gthread",
                    // Idle keep-alive connections stay open as long as nginx's do.
                    "--keep-alive", "300", "--graceful-timeout", "2", "--no-control-socket",
                    "--worker-tmp-dir", directory.path,
                    "--access-logfile", directory.appendingPathComponent("gunicorn-access.log").path,
                    "httpbin:app",
                ], directory: directory, stopSignal: SIGINT)
            do {
                try server.waitUntilAccepting([port])
                return (server, port)
            } catch {
                server.stop()
                if attempt == attempts || !server.logTail().contains("in use") { throw error }
            }
        }
        preconditionFailure("unreachable: the last attempt returns or throws")
    }
}
