import Courier
import CourierTestServer
import CourierTestSupport
import Foundation
import XCTest

/// Downloads, redirects, TLS, HTTP/2 and connection reuse against real nginx and httpbin.
final class DownloadAndRedirectInteropTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory("courier-interop")
    }

    func testThatADownloadDroppedAtHalfResumesAgainstNginxToAnIdenticalFile() throws {
        let servers = try InteropServers.shared
        let size = 5_000_000
        let name = "resume/\(UUID().uuidString).bin"
        let original = try servers.makeFile(named: name, size: size)
        let destination = directory.appendingPathComponent("resumed.bin").path

        // The fixture server drops the connection at 50 %.
        let fixture = try TestServer()
        defer { fixture.stop() }
        let dropped = HTTPRequest(url: fixture.url(.dropMidBody(size)))
        dropped.downloadDestinationPath = destination
        dropped.allowResumeForFileDownloads = true
        dropped.startSynchronous()
        XCTAssertEqual(dropped.error?.type, .connectionFailure)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))

        // nginx serves the same bytes and honours the Range (gzip is off for /files/).
        let resumed = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
        resumed.downloadDestinationPath = destination
        resumed.allowResumeForFileDownloads = true
        resumed.useCookiePersistence = false
        resumed.startSynchronous()
        XCTAssertNil(resumed.error)
        XCTAssertEqual(resumed.responseStatusCode, 206)
        XCTAssertEqual(resumed.partialDownloadSize, Int64(size / 2))
        let entry = try XCTUnwrap(servers.accessLog { $0.uri == "/files/\(name)" }.last)
        XCTAssertEqual(entry.range, "bytes=\(size / 2)-")
        XCTAssertEqual(entry.bodyBytesSent, size / 2)
        XCTAssertEqual(
            try ExternalTool.md5(of: URL(fileURLWithPath: destination)), try ExternalTool.md5(of: original),
            "byte-identical")
    }

    func testThatAuthorizationDoesNotFollowToAnotherHostNorFromHTTPSToHTTP() throws {
        let servers = try InteropServers.shared
        let name = "auth/\(UUID().uuidString).txt"
        try servers.makeFile(named: name, size: 10)
        let port = servers.nginxHTTP.port!

        // 127.0.0.1 → localhost: another host.
        let crossHost = HTTPRequest(
            url: servers.redirectURL(status: 307, to: "http://localhost:\(port)/files/\(name)?hop=host"))
        crossHost.addRequestHeader("Authorization", value: "Bearer first-host-only")
        crossHost.useCookiePersistence = false
        crossHost.startSynchronous()
        XCTAssertNil(crossHost.error)
        XCTAssertEqual(crossHost.responseStatusCode, 200)

        // https → http on the same host.
        let downgrade = HTTPRequest(
            url: servers.redirectURL(
                status: 302, to: "http://localhost:\(port)/files/\(name)?hop=downgrade", secure: true))
        downgrade.caBundlePath = servers.caBundlePath
        downgrade.addRequestHeader("Authorization", value: "Bearer tls-only")
        downgrade.useCookiePersistence = false
        downgrade.startSynchronous()
        XCTAssertNil(downgrade.error)

        let log = servers.accessLog(waitingFor: 4) { $0.uri.contains(name) }
        let redirects = log.filter { $0.uri.hasPrefix("/redirect/") }
        let finals = log.filter { $0.uri.hasPrefix("/files/") }
        XCTAssertEqual(
            redirects.map(\.authorization), ["Bearer first-host-only", "Bearer tls-only"], "the first host saw it")
        XCTAssertEqual(finals.map(\.authorization), [nil, nil], "the second host, and plain http, did not")
    }

    func testThatHTTPSUsesHTTP2WithTheCAAndIsRefusedWithoutIt() throws {
        let servers = try InteropServers.shared
        let name = "tls/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 20_000)
        let url = servers.nginxURL("/files/\(name)", secure: true)

        let trusted = HTTPRequest(url: url)
        trusted.caBundlePath = servers.caBundlePath
        trusted.shouldAttemptPersistentConnection = false  // a handshake of its own, to measure
        trusted.startSynchronous()
        XCTAssertNil(trusted.error)
        XCTAssertEqual(trusted.responseStatusMessage, "HTTP/2 200")
        XCTAssertEqual(trusted.responseData(), TestServer.deterministicBytes(count: 20_000))
        XCTAssertGreaterThan(trusted.metrics.tls, 0)

        let untrusted = HTTPRequest(url: url)
        untrusted.startSynchronous()
        XCTAssertEqual(untrusted.error?.type, .connectionFailure)
        XCTAssertTrue(untrusted.error?.message.contains("TLS") ?? false, "\(String(describing: untrusted.error))")

        let unchecked = HTTPRequest(url: url)
        unchecked.validatesSecureCertificate = false
        unchecked.startSynchronous()
        XCTAssertNil(unchecked.error)
        XCTAssertEqual(unchecked.responseStatusCode, 200)

        let logged = servers.accessLog(waitingFor: 2) { $0.uri == "/files/\(name)" }
        XCTAssertEqual(logged.map(\.serverProtocol), ["HTTP/2.0", "HTTP/2.0"])
    }

    func testThatACABundleThatIsNotPEMIsBlamedAndNotTheServer() throws {
        let servers = try InteropServers.shared
        let name = "tls/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        let notPEM = try makeTemporaryDirectory().writeFile("hostname", Data("builder\n".utf8))
        let request = HTTPRequest(url: servers.nginxURL("/files/\(name)", secure: true))
        request.caBundlePath = notPEM
        request.shouldAttemptPersistentConnection = false
        request.startSynchronous()
        let message = request.error?.message ?? ""
        XCTAssertTrue(message.contains("is not a readable file of PEM certificates"), message)
        XCTAssertFalse(message.contains("self-signed"), message)
    }

    func testThatConcurrentHTTP2RequestsShareOneConnection() throws {
        let servers = try InteropServers.shared
        let names = (0..<6).map { "h2/\(UUID().uuidString)-\($0).bin" }
        for name in names { try servers.makeFile(named: name, size: 200_000) }
        let queue = NetworkQueue()
        queue.maxConcurrentOperationCount = 6
        let requests = names.map { name -> HTTPRequest in
            let request = HTTPRequest(url: servers.nginxURL("/files/\(name)", secure: true))
            request.caBundlePath = servers.caBundlePath
            return request
        }
        queue.addOperations(requests, waitUntilFinished: false)
        queue.go()
        queue.waitUntilAllOperationsAreFinished()
        XCTAssertTrue(requests.allSatisfy { $0.responseStatusCode == 200 && $0.responseData()?.count == 200_000 })
        let log = servers.accessLog(waitingFor: names.count) { entry in names.contains { entry.uri.hasSuffix($0) } }
        XCTAssertEqual(Set(log.map(\.connection)).count, 1, "multiplexed over one connection: \(log.map(\.connection))")
    }

    func testThatReuseAndFreshConnectionsShowInNginxsLog() throws {
        let servers = try InteropServers.shared
        let name = "conn/\(UUID().uuidString).bin"
        try servers.makeFile(named: name, size: 100)
        for fresh in [false, false, true] {
            let request = HTTPRequest(url: servers.nginxURL("/files/\(name)"))
            request.shouldAttemptPersistentConnection = !fresh
            request.startSynchronous()
            XCTAssertEqual(request.responseStatusCode, 200)
        }
        let log = servers.accessLog(waitingFor: 3) { $0.uri == "/files/\(name)" }
        XCTAssertEqual(log.count, 3)
        XCTAssertEqual(log[0].connection, log[1].connection, "the second request reused the connection")
        XCTAssertNotEqual(log[2].connection, log[1].connection, "the fresh one did not")
        XCTAssertEqual(log[2].connectionRequests, 1)
    }

    func testThatHTTPBinRedirectsFollowASIsRules() throws {
        struct Anything: Decodable {
            let method: String
            let data: String
            let headers: [String: String]
        }
        let servers = try InteropServers.shared
        for (status, method, body) in [
            (302, "GET", ""), (303, "GET", ""), (307, "POST", "kept body"), (308, "POST", "kept body"),
        ] {
            let target = "/anything/landed".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let request = HTTPRequest(url: servers.httpbinURL("/redirect-to?url=\(target)&status_code=\(status)"))
            request.requestMethod = "POST"
            request.postBody = Data("kept body".utf8)
            request.addRequestHeader("X-Mine", value: "yes")
            request.startSynchronous()
            XCTAssertNil(request.error, "\(status)")
            let echo = try JSONDecoder().decode(Anything.self, from: try XCTUnwrap(request.responseData()))
            XCTAssertEqual(echo.method, method, "\(status)")
            XCTAssertEqual(echo.data, body, "\(status)")
            XCTAssertEqual(echo.headers["X-Mine"], status >= 307 ? "yes" : nil, "\(status)")
            XCTAssertEqual(request.url.path, "/anything/landed")
        }
    }
}
