import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// `courier` through tinyproxy and Dante, with `-u` against httpbin and nginx, `post` to httpbin,
/// and `-H`/`-A` as httpbin sees them.
extension CLIInteropTests {
    /// The JSON object `text` holds.
    private func jsonObject(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    // MARK: - Proxies

    func testThatGetGoesThroughTinyproxyWithAndWithoutCredentials() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let folder = makeServedFolder(servers)
        let source = try servers.makeFile(named: "\(folder)/proxied.bin", size: 20_000)
        let url = servers.nginxURL("/files/\(folder)/proxied.bin").absoluteString
        let credentials = "\(ProxyServers.user):\(ProxyServers.password)@"
        for (proxy, authenticating) in [
            ("http://127.0.0.1:\(proxies.httpProxyPort)", false),
            ("http://\(credentials)127.0.0.1:\(proxies.authenticatingProxyPort)", true),
        ] {
            let directory = try makeTemporaryDirectory()
            let before = proxies.tinyproxyRequests(authenticating: authenticating) { $0.contains(folder) }.count
            let run = try courier(["get", "--proxy", proxy, "-v", "-o", directory.path, "--no-progress", url])
            XCTAssertEqual(run.status, 0, run.transcript)
            XCTAssertEqual(
                try ExternalTool.md5(of: directory.appendingPathComponent("proxied.bin")),
                try ExternalTool.md5(of: source))
            let forwarded = proxies.tinyproxyRequests(authenticating: authenticating, waitingFor: before + 1) {
                $0.contains(folder)
            }
            // The authenticating tinyproxy logs the request it answers with a 407 too.
            let lines = Array(forwarded.dropFirst(before))
            XCTAssertFalse(lines.isEmpty, "tinyproxy forwarded it")
            XCTAssertEqual(Set(lines), ["GET \(url) HTTP/1.1"], "tinyproxy forwarded it")
            XCTAssertFalse(run.transcript.contains(ProxyServers.password), "even with -v: \(run.transcript)")
            let basic = Data("\(ProxyServers.user):\(ProxyServers.password)".utf8).base64EncodedString()
            XCTAssertFalse(run.transcript.contains(basic), "no Proxy-Authorization value: \(run.transcript)")
        }
    }

    func testThatHTTPProxyFromTheEnvironmentIsUsedUnlessNoProxyNamesTheHost() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let folder = makeServedFolder(servers)
        try servers.makeFile(named: "\(folder)/environment.bin", size: 3_000)
        let url = servers.nginxURL("/files/\(folder)/environment.bin").absoluteString
        let proxy = ["http_proxy": "http://127.0.0.1:\(proxies.httpProxyPort)"]
        for (environment, throughProxy) in [(proxy, true), (proxy.merging(["no_proxy": "127.0.0.1"]) { $1 }, false)] {
            let directory = try makeTemporaryDirectory()
            let before = proxies.tinyproxyRequests { $0.contains(folder) }.count
            let run = try courier(["get", "-o", directory.path, "--no-progress", url], proxies: environment)
            XCTAssertEqual(run.status, 0, run.transcript)
            XCTAssertEqual(try Data(contentsOf: directory.appendingPathComponent("environment.bin")).count, 3_000)
            // tinyproxy logs a request line as it reads it, before it answers.
            let forwarded = proxies.tinyproxyRequests(waitingFor: before + 1, timeout: throughProxy ? 5 : 0.5) {
                $0.contains(folder)
            }
            XCTAssertEqual(
                Array(forwarded.dropFirst(before)), throughProxy ? ["GET \(url) HTTP/1.1"] : [], "\(environment)")
        }
    }

    func testThatGetGoesThroughDanteAsSOCKS5hToTheTLSFront() throws {
        let servers = try InteropServers.shared
        let proxies = try ProxyServers.shared
        let folder = makeServedFolder(servers)
        let source = try servers.makeFile(named: "\(folder)/socks.bin", size: 50_000)
        // https://localhost: with socks5h, Dante resolves the name.
        let url = servers.nginxURL("/files/\(folder)/socks.bin", secure: true)
        let directory = try makeTemporaryDirectory()
        let before = proxies.socksConnections().count
        let run = try courier([
            "get", "--proxy", "socks5h://127.0.0.1:\(proxies.socksPort)", "--cacert", servers.caBundlePath, "-o",
            directory.path, "--no-progress", url.absoluteString,
        ])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(
            try ExternalTool.md5(of: directory.appendingPathComponent("socks.bin")), try ExternalTool.md5(of: source))
        let connections = proxies.socksConnections(waitingFor: before + 1)
        XCTAssertTrue(
            connections.dropFirst(before).contains { $0.hasSuffix("127.0.0.1.\(url.port!)") },
            "Dante connected to nginx: \(connections.suffix(2))")
    }

    // MARK: - Credentials

    func testThatUserAnswersHTTPBinsBasicAndDigestAndAWrongPasswordFails() throws {
        let servers = try InteropServers.shared
        let password = "pw-\(UUID().uuidString.prefix(8))"
        for path in ["/basic-auth/ada/\(password)", "/digest-auth/auth/ada/\(password)"] {
            let url = servers.httpbinURL(path).absoluteString
            let directory = try makeTemporaryDirectory()
            let saved = directory.appendingPathComponent("auth.json")
            let run = try courier(["get", "-u", "ada:\(password)", "-v", "-O", saved.path, "--no-progress", url])
            XCTAssertEqual(run.status, 0, run.transcript)
            let answer = try jsonObject(try String(contentsOf: saved, encoding: .utf8))
            XCTAssertEqual(answer["authenticated"] as? Bool, true, path)
            XCTAssertEqual(answer["user"] as? String, "ada", path)
            // httpbin's URL holds the password it expects; anywhere else it must not appear.
            let elsewhere = run.transcript.replacingOccurrences(of: path, with: "")
            XCTAssertFalse(elsewhere.contains(password), "\(path): \(run.transcript)")
            let basic = Data("ada:\(password)".utf8).base64EncodedString()
            XCTAssertFalse(run.transcript.contains(basic), "\(path): \(run.transcript)")

            let wrongPassword = "wrong-\(UUID().uuidString.prefix(8))"
            let wrong = try courier(["get", "-u", "ada:\(wrongPassword)", "-v", "-O", saved.path, "--force", url])
            XCTAssertEqual(wrong.status, 1, wrong.transcript)
            XCTAssertTrue(
                wrong.outputLines.contains { $0.hasPrefix("FAIL") && $0.contains("Authentication needed") },
                "\(path): \(wrong.transcript)")
            XCTAssertFalse(wrong.transcript.contains(wrongPassword), "\(path): \(wrong.transcript)")
        }
    }

    func testThatAPasswordThatIsNotInTheURLNeverAppearsEvenInTheDebugLog() throws {
        let servers = try InteropServers.shared
        let folder = makeServedFolder(servers)
        try servers.makeFile(named: "\(folder)/private.bin", size: 1_000)
        let directory = try makeTemporaryDirectory()
        let run = try courier([
            "get", "-v", "-u", "interop:nginx-secret", "-o", directory.path,
            servers.nginxURL("/protected/\(folder)/private.bin").absoluteString,
        ])
        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertFalse(run.standardError.isEmpty, "-v prints the debug log")
        XCTAssertEqual(
            try Data(contentsOf: directory.appendingPathComponent("private.bin")),
            TestServer.deterministicBytes(count: 1_000))
        XCTAssertFalse(run.transcript.contains("nginx-secret"), run.transcript)
        XCTAssertFalse(run.transcript.contains(Data("interop:nginx-secret".utf8).base64EncodedString()), run.transcript)
    }

    // MARK: - post

    func testThatPostSendsFormFieldsAndAFileThatHTTPBinReadsBack() throws {
        let servers = try InteropServers.shared
        let directory = try makeTemporaryDirectory()
        let contents = "first line\nsecond line: ünïcode\n"
        let path = try directory.writeFile("notes.txt", Data(contents.utf8))
        let run = try courier([
            "post", "--no-progress", servers.httpbinURL("/post").absoluteString, "-F", "name=ada", "-F",
            "file=@\(path);type=text/plain",
        ])
        XCTAssertEqual(run.status, 0, run.transcript)
        let answer = try jsonObject(run.standardOutput)
        XCTAssertEqual((answer["form"] as? [String: String])?["name"], "ada", run.standardOutput)
        XCTAssertEqual((answer["files"] as? [String: String])?["file"], contents, run.standardOutput)
        let contentType = (answer["headers"] as? [String: String])?["Content-Type"] ?? ""
        XCTAssertTrue(contentType.hasPrefix("multipart/form-data;") && contentType.contains("boundary="), contentType)

        let urlencoded = try courier([
            "post", "--no-progress", servers.httpbinURL("/post").absoluteString, "--data", "a=1&b=2",
        ])
        XCTAssertEqual(urlencoded.status, 0, urlencoded.transcript)
        let form = try jsonObject(urlencoded.standardOutput)["form"] as? [String: String]
        XCTAssertEqual(form, ["a": "1", "b": "2"], urlencoded.standardOutput)
    }

    func testThatPutOfABinaryFileArrivesByteForByteAndA418Fails() throws {
        let servers = try InteropServers.shared
        let directory = try makeTemporaryDirectory()
        let bytes = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let path = try directory.writeFile("blob.bin", bytes)
        let run = try courier([
            "post", "--no-progress", "-X", "PUT", "-H", "Content-Type: application/octet-stream", "--data-binary",
            "@\(path)", servers.httpbinURL("/put").absoluteString,
        ])
        XCTAssertEqual(run.status, 0, run.transcript)
        let answer = try jsonObject(run.standardOutput)
        // httpbin shows a body that is not UTF-8 as a data URL of its base64.
        XCTAssertEqual(
            answer["data"] as? String, "data:application/octet-stream;base64," + bytes.base64EncodedString())
        XCTAssertTrue(
            run.standardError.contains("PUT \(servers.httpbinURL("/put").absoluteString): 200"), run.transcript)

        let teapot = try courier([
            "post", "--no-progress", servers.httpbinURL("/status/418").absoluteString, "--data", "x",
        ])
        XCTAssertEqual(teapot.status, 1, teapot.transcript)
        XCTAssertTrue(teapot.standardError.contains("418"), teapot.transcript)
    }

    // MARK: - Headers

    func testThatHeaderAndUserAgentReachTheServer() throws {
        let servers = try InteropServers.shared
        let run = try courier([
            "get", "-H", "X-Courier-Test: interop 19", "-A", "courier-interop/1.0 (tests)", "-O", "-",
            servers.httpbinURL("/headers").absoluteString,
        ])
        XCTAssertEqual(run.status, 0, run.transcript)
        let headers = try jsonObject(run.standardOutput)["headers"] as? [String: String]
        XCTAssertEqual(headers?["X-Courier-Test"], "interop 19", run.standardOutput)
        XCTAssertEqual(headers?["User-Agent"], "courier-interop/1.0 (tests)", run.standardOutput)
    }
}
