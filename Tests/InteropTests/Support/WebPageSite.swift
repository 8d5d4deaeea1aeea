import Foundation

/// A web site for WebPageRequest's tests: a dedicated nginx on loopback, started once per test
/// process on first use and stopped when the test bundle finishes, with two origins on two ports
/// (the page's, and another one for cross-origin resources) and one access log for both.
///
/// ```swift
/// let folder = try WebPageSite.shared.makeFolder()
/// try folder.write("index.html", "<img src=a.png><img src=\(folder.otherURL("b.png"))>")
/// try folder.write("a.png", TestPNG.distinct(1))
/// try folder.writeOther("b.png", TestPNG.distinct(2))
/// let request = WebPageRequest(url: folder.url("index.html"))
/// request.startSynchronous()
/// XCTAssertEqual(Set(folder.requestedFiles()), [.page("index.html"), .page("a.png"), .other("b.png")])
/// ```
///
/// Each test works in its own ``WebPageSiteFolder`` (a fresh `/UUID/` on both origins) and reads
/// only its folder's requests, so tests never see each other's. What the paths answer (charsets,
/// redirects, 404, a closed connection, a slow transfer) is in ``WebPageSiteConfiguration``; the
/// sites the issue's tests need are built by ``WebPageFixture``.
///
/// The page origin is `http://127.0.0.1:PORT`. The other origin is `http://localhost:PORT`: another
/// host too, so the cookie jar (whose cookies are not bound to a port) and credentials never reach
/// it by host alone; ``otherOriginOnPageHost`` is the same server by the page's host, for a check
/// where only the port differs.
final class WebPageSite: Sendable {
    /// The page origin: `http://127.0.0.1:PORT`.
    let pageOrigin: URL
    /// The other origin: `http://localhost:PORT`.
    let otherOrigin: URL
    /// The other origin's server by the page's host: `http://127.0.0.1:PORT` (same host as the
    /// page, another port: another origin still).
    let otherOriginOnPageHost: URL
    /// The page origin's listening port, as the access log's ``AccessLogEntry/serverPort``.
    let pagePort: Int
    /// The other origin's listening port.
    let otherPort: Int
    /// What the page origin serves.
    let pageRoot: URL
    /// What the other origin serves.
    let otherRoot: URL
    /// The temporary directory that holds everything: configuration, roots, logs.
    let directory: URL
    /// nginx's access log: one JSON object per request, both origins.
    let accessLogURL: URL

    private let group: ServerGroup

    /// The site, started by the first caller in this process.
    /// - Throws: the reason it could not start (nginx missing names `scripts/setup.sh`); every
    ///   later caller gets the same error, so every test using it fails with it rather than skips.
    static var shared: WebPageSite {
        get throws { try started.get() }
    }

    private static let started = Result { () throws -> WebPageSite in
        let site = try WebPageSite.start()
        site.group.stopWhenTheBundleFinishes()
        return site
    }

    private init(configuration: WebPageSiteConfiguration, group: ServerGroup) {
        pagePort = configuration.pagePort
        otherPort = configuration.otherPort
        pageOrigin = URL(string: "http://127.0.0.1:\(pagePort)")!
        otherOrigin = URL(string: "http://localhost:\(otherPort)")!
        otherOriginOnPageHost = URL(string: "http://127.0.0.1:\(otherPort)")!
        pageRoot = configuration.pageRoot
        otherRoot = configuration.otherRoot
        directory = configuration.directory
        accessLogURL = configuration.accessLog
        self.group = group
    }

    /// A new folder, `/UUID/` on both origins, empty until a test writes into it.
    func makeFolder() throws -> WebPageSiteFolder {
        let folder = WebPageSiteFolder(site: self, name: UUID().uuidString.lowercased())
        for root in [pageRoot, otherRoot] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent(folder.name, isDirectory: true), withIntermediateDirectories: true)
        }
        return folder
    }

    /// `path` (starting with "/", query allowed) on the page origin.
    func pageURL(_ path: String) -> URL {
        URL(string: pageOrigin.absoluteString + path)!
    }

    /// `path` (starting with "/", query allowed) on the other origin.
    func otherURL(_ path: String) -> URL {
        URL(string: otherOrigin.absoluteString + path)!
    }

    /// Stops nginx and removes ``directory``. Called when the test bundle finishes; safe to call
    /// more than once.
    func stop() {
        group.stop()
    }

    // MARK: - Starting

    /// How many times nginx is started on fresh ports when a port was taken meanwhile.
    private static let attempts = 3

    private static func start() throws -> WebPageSite {
        let nginx = try ExternalTool.locate("nginx")
        let directory = try InteropServers.makeTemporaryDirectory()
        do {
            let pageRoot = directory.appendingPathComponent("page", isDirectory: true)
            let otherRoot = directory.appendingPathComponent("other", isDirectory: true)
            for root in [pageRoot, otherRoot] {
                try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            }
            let configurationFile = directory.appendingPathComponent("nginx.conf")
            let errorLog = directory.appendingPathComponent("error.log")
            for attempt in 1...attempts {
                let configuration = WebPageSiteConfiguration(
                    pagePort: try LoopbackPort.free(), otherPort: try LoopbackPort.free(), directory: directory,
                    pageRoot: pageRoot, otherRoot: otherRoot, accessLog: directory.appendingPathComponent("access.log"))
                try configuration.text.write(to: configurationFile, atomically: true, encoding: .utf8)
                let server = try ChildServer(
                    name: "nginx", executable: nginx,
                    arguments: ["-c", configurationFile.path, "-p", directory.path + "/", "-e", errorLog.path],
                    directory: directory, errorLogURL: errorLog, stopSignal: SIGTERM)
                do {
                    try server.waitUntilAccepting([configuration.pagePort, configuration.otherPort])
                } catch {
                    server.stop()
                    if attempt == attempts || !server.logTail().contains("in use") { throw error }
                    continue
                }
                do {
                    let watchdog = try ServerWatchdog(pids: [server.pid], directory: directory)
                    let group = ServerGroup(servers: [server], watchdog: watchdog, directory: directory)
                    return WebPageSite(configuration: configuration, group: group)
                } catch {
                    server.stop()
                    throw error
                }
            }
            preconditionFailure("unreachable: the last attempt returns or throws")
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }
}
