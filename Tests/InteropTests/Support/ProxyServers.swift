import Foundation
import Synchronization
import XCTest

/// Real proxies for the interop tests, on loopback, started once per test process on first use
/// and stopped when the test bundle finishes, like ``InteropServers``:
/// - tinyproxy, open (``httpProxyPort``) and with Basic authentication (``authenticatingProxyPort``,
///   user ``user``, password ``password``): HTTP proxies that forward http and tunnel https
///   (`CONNECT`);
/// - an HTTPS proxy (``httpsProxyPort``): nginx's stream module ending TLS, with the interop
///   certificate (CA ``InteropServers/caBundlePath``), in front of the open tinyproxy;
/// - Dante (``socksPort``), a SOCKS4 and SOCKS5 server without authentication. It refuses
///   SOCKS4a.
///
/// What each proxy forwarded is in its log (``tinyproxyRequests(authenticating:)``,
/// ``socksConnections()``).
final class ProxyServers: Sendable {
    static let user = "courier-proxy"
    static let password = "tinyproxy-secret"
    /// The realm tinyproxy's 407 names.
    static let realm = "Tinyproxy"

    let httpProxyPort: Int
    let authenticatingProxyPort: Int
    let httpsProxyPort: Int
    let socksPort: Int
    let directory: URL

    private let group: ServerGroup

    /// The proxies, started by the first caller in this process (the interop servers too, whose
    /// certificate the HTTPS proxy uses). Every later caller gets the same error, if any.
    static var shared: ProxyServers {
        get throws { try started.get() }
    }

    private static let started = Result { () throws -> ProxyServers in
        let proxies = try ProxyServers.start(
            certificates: try TestCertificates(existingIn: InteropServers.shared.directory))
        proxies.group.stopWhenTheBundleFinishes()
        return proxies
    }

    private init(ports: [Int], servers: [ChildServer], directory: URL, watchdog: ServerWatchdog) {
        (httpProxyPort, authenticatingProxyPort, httpsProxyPort, socksPort) = (ports[0], ports[1], ports[2], ports[3])
        self.directory = directory
        group = ServerGroup(servers: servers, watchdog: watchdog, directory: directory)
    }

    /// Stops the proxies and removes ``directory``; safe to call more than once.
    func stop() {
        group.stop()
    }

    // MARK: - Logs

    /// The request lines tinyproxy received ("GET http://127.0.0.1:8080/x HTTP/1.1",
    /// "CONNECT localhost:8443 HTTP/1.1"), oldest first, once at least `count` satisfy
    /// `predicate` or `timeout` passed.
    func tinyproxyRequests(
        authenticating: Bool = false, waitingFor count: Int = 0, timeout: TimeInterval = 5,
        where predicate: (String) -> Bool = { _ in true }
    ) -> [String] {
        let log = directory.appendingPathComponent(authenticating ? "tinyproxy-auth.log" : "tinyproxy.log")
        return Self.waitForLines(in: log, marker: "Request (file descriptor", count: count, timeout: timeout) {
            predicate($0)
        }
    }

    /// Dante's record of each connection it made for a client: "... -> 127.0.0.1.PORT" ends with
    /// the destination's address and port.
    func socksConnections(
        waitingFor count: Int = 0, timeout: TimeInterval = 5, where predicate: (String) -> Bool = { _ in true }
    ) -> [String] {
        Self.waitForLines(
            in: directory.appendingPathComponent("danted.log"), marker: "tcp/connect [", count: count,
            timeout: timeout, where: predicate)
    }

    private static func waitForLines(
        in log: URL, marker: String, count: Int, timeout: TimeInterval, where predicate: (String) -> Bool
    ) -> [String] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: marker) else { return nil }
                let rest = line[range.upperBound...]
                return String(rest.drop { $0 != ":" }.dropFirst().drop { $0 == " " })
            }.filter(predicate)
            if lines.count >= count || Date() >= deadline { return lines }
            usleep(10_000)
        }
    }

    // MARK: - Starting

    private static let attempts = 3
    private static let streamModule = "/usr/lib/nginx/modules/ngx_stream_module.so"

    private static func start(certificates: TestCertificates) throws -> ProxyServers {
        let tinyproxy = try ExternalTool.locate("tinyproxy")
        let danted = try ExternalTool.locate("danted")
        let nginx = try ExternalTool.locate("nginx")
        guard FileManager.default.fileExists(atPath: streamModule) else {
            throw InteropServersError.missingTool("nginx's stream module (libnginx-mod-stream)", lookedIn: streamModule)
        }
        let directory = try makeTemporaryDirectory()
        var started: [ChildServer] = []
        do {
            var ports: [Int] = []
            for authenticates in [false, true] {
                let (server, port) = try startServer("tinyproxy" + (authenticates ? "-auth" : ""), in: directory) {
                    port, name in
                    let configuration = directory.appendingPathComponent("\(name).conf")
                    try tinyproxyConfiguration(
                        port: port, log: directory.appendingPathComponent("\(name).log"),
                        authenticates: authenticates
                    ).write(to: configuration, atomically: true, encoding: .utf8)
                    // -d: in the foreground, so the pid is the server's.
                    return (tinyproxy, ["-d", "-c", configuration.path], SIGTERM)
                }
                started.append(server)
                ports.append(port)
            }
            let (stream, streamPort) = try startServer("nginx-proxy-tls", in: directory) { port, name in
                let configuration = directory.appendingPathComponent("\(name).conf")
                try tlsFrontConfiguration(
                    port: port, upstream: ports[0], directory: directory, certificates: certificates
                )
                .write(to: configuration, atomically: true, encoding: .utf8)
                return (
                    nginx,
                    ["-c", configuration.path, "-p", directory.path + "/", "-e", directory.path + "/\(name).err"],
                    SIGTERM
                )
            }
            started.append(stream)
            ports.append(streamPort)
            let (dante, socksPort) = try startServer("danted", in: directory) { port, name in
                let configuration = directory.appendingPathComponent("\(name).conf")
                try danteConfiguration(port: port, log: directory.appendingPathComponent("\(name).log"))
                    .write(to: configuration, atomically: true, encoding: .utf8)
                // Dante closes every descriptor it inherited, Foundation's watch on its child
                // among them: Foundation then takes it for dead and blocks reaping it. A shell
                // that keeps the descriptor runs it instead and passes SIGTERM on.
                let arguments = [danted.path, "-f", configuration.path, "-p", directory.path + "/\(name).pid"]
                return (URL(fileURLWithPath: "/bin/sh"), ["-c", signalForwarder, name] + arguments, SIGTERM)
            }
            started.append(dante)
            ports.append(socksPort)
            let watchdog = try ServerWatchdog(pids: started.map(\.pid), directory: directory)
            return ProxyServers(ports: ports, servers: started, directory: directory, watchdog: watchdog)
        } catch {
            for server in started { server.stop() }
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Starts `name` on a free port (`command` writes its configuration and says how to run it),
    /// again on a fresh port if another program took it meanwhile.
    private static func startServer(
        _ name: String, in directory: URL, command: (Int, String) throws -> (URL, [String], Int32)
    ) throws -> (ChildServer, Int) {
        for attempt in 1...attempts {
            let port = try LoopbackPort.free()
            let (executable, arguments, signal) = try command(port, name)
            let server = try ChildServer(
                name: name, executable: executable, arguments: arguments, directory: directory, stopSignal: signal)
            do {
                try server.waitUntilAccepting([port])
                return (server, port)
            } catch {
                server.stop()
                if attempt == attempts { throw error }
            }
        }
        preconditionFailure("unreachable: the last attempt returns or throws")
    }

    /// Runs its arguments as a child and ends it on SIGTERM, exiting with its status.
    private static let signalForwarder = """
        "$@" </dev/null & child=$!
        trap 'kill -TERM "$child" 2>/dev/null' TERM
        wait "$child"; status=$?
        # A wait the trap interrupted returns early: wait again for the server to end.
        wait "$child" 2>/dev/null
        exit $status
        """

    private static func tinyproxyConfiguration(port: Int, log: URL, authenticates: Bool) -> String {
        """
        # Written by the interop tests (Tests/InteropTests/Support/ProxyServers.swift).
        Port \(port)
        Listen 127.0.0.1
        Timeout 60
        MaxClients 64
        Allow 127.0.0.1
        # Connect: each request line is logged, CONNECT ones too.
        LogLevel Connect
        LogFile "\(log.path)"
        \(authenticates ? "BasicAuth \(user) \(password)" : "")

        """
    }

    /// nginx as a TLS front for tinyproxy: together an HTTPS proxy.
    private static func tlsFrontConfiguration(
        port: Int, upstream: Int, directory: URL, certificates: TestCertificates
    ) -> String {
        """
        # Written by the interop tests (Tests/InteropTests/Support/ProxyServers.swift).
        load_module \(streamModule);
        daemon off;
        master_process off;
        pid \(directory.path)/nginx-proxy-tls.pid;
        error_log \(directory.path)/nginx-proxy-tls.err warn;
        events { worker_connections 256; }
        stream {
            server {
                listen 127.0.0.1:\(port) ssl;
                ssl_certificate \(certificates.serverCertificate.path);
                ssl_certificate_key \(certificates.serverKey.path);
                proxy_pass 127.0.0.1:\(upstream);
            }
        }

        """
    }

    private static func danteConfiguration(port: Int, log: URL) -> String {
        """
        # Written by the interop tests (Tests/InteropTests/Support/ProxyServers.swift).
        logoutput: \(log.path)
        internal: 127.0.0.1 port = \(port)
        external: 127.0.0.1
        clientmethod: none
        socksmethod: none
        client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }
        socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 log: connect }

        """
    }

    private static func makeTemporaryDirectory() throws -> URL {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("courier-proxies-XXXXXX").path
        var bytes = Array(template.utf8CString)
        guard let made = mkdtemp(&bytes) else { throw InteropServersError.system("mkdtemp(\(template))", errno: errno) }
        return URL(fileURLWithPath: String(cString: made), isDirectory: true)
    }
}
