import CourierTestSupport
import Foundation
import XCTest

/// The `courier` executable run as a user runs it, against servers Courier did not write: nginx
/// (plain and TLS), httpbin, tinyproxy and Dante. Each test looks only at what a user sees: the
/// exit status, the files saved (and their md5), and the lines printed.
///
/// This file: `get` downloads. CLIInteropTests+Requests.swift: proxies, credentials, `post`
/// and headers.
final class CLIInteropTests: XCTestCase {
    /// Every proxy variable set to "", so that a proxy in the environment the tests run in cannot
    /// come between courier and the servers (libcurl and Courier take an empty one for none).
    static let environmentWithoutProxies = Dictionary(uniqueKeysWithValues: ProxyEnvironment.names.map { ($0, "") })

    /// Runs `courier arguments` with no proxy in its environment but those of `proxies`, for at
    /// most `timeout` seconds.
    func courier(_ arguments: [String], proxies: [String: String] = [:], timeout: TimeInterval = 30) throws -> CLIRun {
        let environment = Self.environmentWithoutProxies.merging(proxies) { $1 }
        return try CourierBinary.run(arguments, CourierBinary.Launch(environment: environment, timeout: timeout))
    }

    /// A folder of nginx's docroot only this test uses, removed when it ends; returns its name.
    func makeServedFolder(_ servers: InteropServers) -> String {
        let folder = "cli/\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(at: servers.docroot.appendingPathComponent(folder)) }
        return folder
    }

    // MARK: - Parallel downloads

    func testThatSixFilesDownloadedFourAtATimeHaveTheirServersMD5AndNothingElseIsLeft() throws {
        let servers = try InteropServers.shared
        let folder = makeServedFolder(servers)
        let sizes = [
            "empty.bin": 0, "one.bin": 1, "small.txt": 1_000, "odd.dat": 65_537, "mebibyte.bin": 1_048_579,
            "large.iso": 8 * 1_048_576,
        ]
        var sources: [String: URL] = [:]
        for (name, size) in sizes { sources[name] = try servers.makeFile(named: "\(folder)/\(name)", size: size) }
        let names = sizes.keys.sorted()
        let urls = names.map { servers.nginxURL("/files/\(folder)/\($0)").absoluteString }
        let directory = try makeTemporaryDirectory()

        let run = try courier(["get", "-j", "4", "-o", directory.path, "--no-progress"] + urls)

        XCTAssertEqual(run.status, 0, run.transcript)
        XCTAssertEqual(try fileNames(in: directory), names, "no .part or .courier-* file may be left")
        for name in names {
            let saved = directory.appendingPathComponent(name)
            XCTAssertEqual(try ExternalTool.md5(of: saved), try ExternalTool.md5(of: sources[name]!), name)
        }
        let lines = run.outputLines
        XCTAssertEqual(lines.count, 7, run.transcript)
        for (name, url) in zip(names, urls) {
            let line = lines.first { $0.hasSuffix("  \(url) -> \(directory.path)/\(name)") }
            XCTAssertTrue(line?.hasPrefix("ok   200") == true, "\(name): \(run.transcript)")
            XCTAssertTrue(line?.contains(" \(sizes[name]!) B ") == true, "\(name): \(run.transcript)")
        }
        let total = sizes.values.reduce(0, +)
        XCTAssertNotNil(
            lines.last?.wholeMatch(of: try Regex("6 URLs: 6 saved; \(total) bytes in \\d+\\.\\d{3} s \\(.+/s\\)")),
            run.transcript)
    }

    func testThatARedirectedDownloadHoldsOnlyTheTargetsBytes() throws {
        let servers = try InteropServers.shared
        let folder = makeServedFolder(servers)
        let source = try servers.makeFile(named: "\(folder)/moved.bin", size: 40_000)
        let directory = try makeTemporaryDirectory()
        // nginx's 302 has an HTML body of its own: it must not end up in the file.
        let url = servers.redirectURL(status: 302, to: "/files/\(folder)/moved.bin").absoluteString
        let run = try courier(["get", "-o", directory.path, "--no-progress", url])
        XCTAssertEqual(run.status, 0, run.transcript)
        // Named after the URL given, as curl -O and wget name it.
        XCTAssertEqual(try fileNames(in: directory), ["302"], run.transcript)
        XCTAssertEqual(
            try ExternalTool.md5(of: directory.appendingPathComponent("302")), try ExternalTool.md5(of: source))
    }

    // MARK: - Memory

    func testThatA256MiBDownloadNeverHoldsMoreThan64MiB() throws {
        let servers = try InteropServers.shared
        let folder = makeServedFolder(servers)
        let size = 256 * 1_048_576
        // The deterministic pattern, not a sparse file of zeros: a body put together at wrong
        // offsets would still have the zeros' md5.
        let source = try servers.makeFile(named: "\(folder)/big.bin", size: size)
        let directory = try makeTemporaryDirectory()

        let run = try courier(
            [
                "get", "-o", directory.path, "--no-progress",
                servers.nginxURL("/files/\(folder)/big.bin").absoluteString,
            ],
            timeout: 120)

        XCTAssertEqual(run.status, 0, run.transcript)
        let saved = directory.appendingPathComponent("big.bin")
        let attributes = try FileManager.default.attributesOfItem(atPath: saved.path)
        XCTAssertEqual((attributes[.size] as? NSNumber)?.intValue, size)
        XCTAssertEqual(try ExternalTool.md5(of: saved), try ExternalTool.md5(of: source))
        let peak = try XCTUnwrap(run.peakResidentBytes, "VmHWM was never read")
        print("PEAK", peak / 1024); XCTAssertLessThan(peak, 64 * 1_048_576, "peak resident memory \(peak / 1024) KiB")
    }

    // MARK: - TLS

    func testThatAnUntrustedCertificateFailsUntilCacertOrInsecureIsGiven() throws {
        let servers = try InteropServers.shared
        let folder = makeServedFolder(servers)
        let source = try servers.makeFile(named: "\(folder)/secure.bin", size: 30_000)
        let url = servers.nginxURL("/files/\(folder)/secure.bin", secure: true).absoluteString

        let untrusted = try makeTemporaryDirectory()
        let refused = try courier(["get", "-o", untrusted.path, "--no-progress", url])
        print("TLS", refused.transcript); XCTAssertEqual(refused.status, 1, refused.transcript)
        let failLine = refused.outputLines.first { $0.hasPrefix("FAIL \(url): ") } ?? ""
        XCTAssertTrue(
            failLine.contains("TLS problem") && failLine.contains("certificate"),
            "a TLS certificate problem: \(refused.transcript)")
        XCTAssertEqual(try fileNames(in: untrusted), [], "nothing saved, no .part left")

        for trust in [["--cacert", servers.caBundlePath], ["-k"]] {
            let directory = try makeTemporaryDirectory()
            let run = try courier(["get", "-o", directory.path, "--no-progress"] + trust + [url])
            XCTAssertEqual(run.status, 0, "\(trust): \(run.transcript)")
            XCTAssertTrue(run.outputLines.first?.hasPrefix("ok   200") == true, run.transcript)
            XCTAssertEqual(
                try ExternalTool.md5(of: directory.appendingPathComponent("secure.bin")),
                try ExternalTool.md5(of: source), "\(trust)")
        }
    }

    // MARK: - Bandwidth

    func testThatLimitRateSlowsA1MiBDownloadToAbout400kBPerSecond() throws {
        let servers = try InteropServers.shared
        let folder = makeServedFolder(servers)
        let source = try servers.makeFile(named: "\(folder)/slow.bin", size: 1_048_576)
        let directory = try makeTemporaryDirectory()
        let started = Date()
        let run = try courier([
            "get", "--limit-rate", "400k", "-o", directory.path, "--no-progress",
            servers.nginxURL("/files/\(folder)/slow.bin").absoluteString,
        ])
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 0, run.transcript)
        // 1 MiB at 400 KiB/s is 2.56 s; libcurl may send the first buffers before it slows down.
        XCTAssertGreaterThanOrEqual(seconds, 2.0, run.transcript)
        XCTAssertLessThanOrEqual(seconds, 10, run.transcript)
        XCTAssertEqual(
            try ExternalTool.md5(of: directory.appendingPathComponent("slow.bin")), try ExternalTool.md5(of: source))
    }

    // MARK: - Content-Disposition

    /// httpbin's `/response-headers` answering with `Content-Disposition: disposition`.
    private func contentDispositionURL(_ servers: InteropServers, _ disposition: String) -> String {
        let encoded = disposition.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return servers.httpbinURL("/response-headers?Content-Disposition=\(encoded)").absoluteString
    }

    func testThatContentDispositionNamesStayInsideTheOutputFolder() throws {
        let servers = try InteropServers.shared
        // out/../../evil.txt would be top/evil.txt: the whole tree under top is checked.
        let top = try makeTemporaryDirectory()
        let output = top.appendingPathComponent("a/b/out")
        for (offered, expected) in [("../../evil.txt", "evil.txt"), ("/etc/passwd", "passwd")] {
            let url = contentDispositionURL(servers, "attachment; filename=\"\(offered)\"")
            let run = try courier(["get", "--content-disposition", "-o", output.path, "--no-progress", url])
            XCTAssertEqual(run.status, 0, run.transcript)
            XCTAssertTrue(
                run.outputLines.first?.hasSuffix("\(url) -> \(output.path)/\(expected)") == true, run.transcript)
            let body = try String(contentsOf: output.appendingPathComponent(expected), encoding: .utf8)
            XCTAssertTrue(body.contains("Content-Disposition"), "httpbin's JSON: \(body)")
        }
        let tree = FileManager.default.enumerator(atPath: top.path)?.allObjects as? [String] ?? []
        XCTAssertEqual(tree.sorted(), ["a", "a/b", "a/b/out", "a/b/out/evil.txt", "a/b/out/passwd"])
        let etcPasswd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        XCTAssertFalse(etcPasswd.contains("Content-Disposition"), "/etc/passwd untouched")
    }
}
