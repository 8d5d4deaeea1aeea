import Courier
import Foundation

/// moto's S3 server (`moto_server`, from the Python environment `scripts/setup.sh --tests` makes),
/// on 127.0.0.1 only, for the S3 interop tests: a real S3 implementation for buckets, objects,
/// listing, copies, metadata, multipart uploads and errors. Started once per test process on first
/// use (other interop tests never pay for it), stopped when the test bundle finishes.
///
/// moto checks no signatures in this mode: any credentials do, and a test of signing itself belongs
/// against CourierTestServer's S3 service (`TestServer.addS3Credentials`). Buckets outlive a test;
/// use ``uniqueBucketName(_:)`` or ``reset()``.
///
/// ```swift
/// let moto = try MotoServer.shared
/// let signer = AWSSignatureV4(accessKey: moto.accessKey, secretAccessKey: moto.secretAccessKey,
///                             region: moto.region)
/// let bucket = moto.uniqueBucketName("photos")
/// let url = moto.url(bucket: bucket, key: "cat.jpg")  // http://127.0.0.1:PORT/BUCKET/cat.jpg
/// ```
final class MotoServer: Sendable {
    /// `http://127.0.0.1:PORT`: the endpoint, path-style (`/BUCKET/KEY`).
    let endpoint: URL
    /// The region buckets are made in unless a `LocationConstraint` says otherwise.
    let region = "us-east-1"
    /// Credentials to sign with; moto accepts any, and these are what its own environment has.
    let accessKey = "moto-access-key"
    /// The secret that goes with ``accessKey``.
    let secretAccessKey = "moto-secret-access-key"

    private let group: ServerGroup

    /// The server, started by the first caller in this process.
    /// - Throws: why it could not start (a missing `moto_server` names `scripts/setup.sh`); every
    ///   later caller gets the same error, so every S3 interop test fails with it.
    static var shared: MotoServer {
        get throws { try started.get() }
    }

    private static let started = Result { () throws -> MotoServer in
        let server = try MotoServer.start()
        server.group.stopWhenTheBundleFinishes()
        return server
    }

    private init(port: Int, group: ServerGroup) {
        endpoint = URL(string: "http://127.0.0.1:\(port)")!
        self.group = group
    }

    /// The path-style URL of `key` in `bucket` (or of the bucket for nil), each key segment
    /// percent-encoded but for RFC 3986's unreserved characters, as SigV4 signs it.
    func url(bucket: String, key: String? = nil, query: String? = nil) -> URL {
        var path = "/" + Self.encode(bucket)
        if let key {
            path +=
                "/"
                + key.split(separator: "/", omittingEmptySubsequences: false).map { Self.encode(String($0)) }
                .joined(separator: "/")
        }
        return URL(string: endpoint.absoluteString + path + (query.map { "?" + $0 } ?? ""))!
    }

    /// A bucket name no other test in this process has: `prefix`, a dash and random hex, lower
    /// case, at most 63 characters, as S3 requires.
    func uniqueBucketName(_ prefix: String = "courier") -> String {
        let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        return String((prefix.lowercased() + "-" + suffix).prefix(63))
    }

    /// Forgets every bucket and object (moto's `POST /moto-api/reset`).
    func reset() throws {
        let request = HTTPRequest(url: endpoint.appendingPathComponent("moto-api/reset"))
        request.requestMethod = "POST"
        request.startSynchronous()
        if let error = request.error { throw error }
        guard request.responseStatusCode == 200 else {
            throw InteropServersError.toolFailed(
                "POST /moto-api/reset", status: Int32(request.responseStatusCode),
                output: request.responseString() ?? "")
        }
    }

    /// Stops the server. Called when the test bundle finishes; safe to call more than once.
    func stop() {
        group.stop()
    }

    // MARK: - Starting

    private static func start() throws -> MotoServer {
        let executable = ExternalTool.pythonEnvironment.appendingPathComponent("bin/moto_server")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw InteropServersError.missingTool("moto_server", lookedIn: executable.path)
        }
        let directory = try InteropServers.makeTemporaryDirectory()
        // A port taken between choosing it and moto binding it: try again on a fresh one.
        for attempt in 1...3 {
            let port = try LoopbackPort.free()
            let server = try ChildServer(
                name: "moto", executable: executable, arguments: ["-H", "127.0.0.1", "-p", String(port)],
                directory: directory, stopSignal: SIGTERM, environment: environment())
            do {
                try server.waitUntilAccepting([port], timeout: 60)
                let watchdog = try ServerWatchdog(pids: [server.pid], directory: directory)
                return MotoServer(
                    port: port, group: ServerGroup(servers: [server], watchdog: watchdog, directory: directory))
            } catch {
                server.stop()
                if attempt == 3 || !server.logTail().contains("in use") {
                    try? FileManager.default.removeItem(at: directory)
                    throw error
                }
            }
        }
        preconditionFailure("unreachable: the last attempt returns or throws")
    }

    /// This process's environment without proxies or AWS settings, plus dummy credentials: moto
    /// (and the boto3 inside it) must never find real credentials or reach anything off this
    /// machine, the instance metadata service included.
    private static func environment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { name, _ in
            let lower = name.lowercased()
            return !name.hasPrefix("AWS_") && !name.hasPrefix("MOTO_") && !lower.hasSuffix("_proxy")
        }
        environment["AWS_ACCESS_KEY_ID"] = "moto-access-key"
        environment["AWS_SECRET_ACCESS_KEY"] = "moto-secret-access-key"
        environment["AWS_DEFAULT_REGION"] = "us-east-1"
        environment["AWS_CONFIG_FILE"] = "/dev/null"
        environment["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
        environment["AWS_EC2_METADATA_DISABLED"] = "true"
        environment["NO_PROXY"] = "*"
        environment["no_proxy"] = "*"
        environment["PYTHONUNBUFFERED"] = "1"
        return environment
    }

    private static func encode(_ text: String) -> String {
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
