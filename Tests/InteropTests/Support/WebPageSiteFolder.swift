import Foundation

/// One test's part of ``WebPageSite``: `/NAME/` on both origins, NAME a fresh UUID. A test writes
/// its pages here and reads back only the requests for this folder.
///
/// ```swift
/// let folder = try WebPageSite.shared.makeFolder()
/// let fixture = WebPageFixture.everyElement(in: folder)
/// try folder.write(fixture)
/// let request = WebPageRequest(url: folder.url(fixture.page))
/// request.startSynchronous()
/// let requested = try folder.requestedFiles()
/// XCTAssertEqual(requested.sorted(), fixture.expectedRequests.sorted())  // each exactly once
/// ```
struct WebPageSiteFolder: Sendable {
    let site: WebPageSite
    /// The folder's name: the first segment of every path in it.
    let name: String

    /// `path` (relative, query allowed) in this folder on the page origin.
    func url(_ path: String) -> URL {
        site.pageURL("/\(name)/\(path)")
    }

    /// `path` (relative, query allowed) in this folder on the other origin (`localhost`).
    func otherURL(_ path: String) -> URL {
        site.otherURL("/\(name)/\(path)")
    }

    /// The URL of `file` on its origin.
    func url(of file: WebPageFile) -> URL {
        file.origin == .page ? url(file.path) : otherURL(file.path)
    }

    /// Writes `text` as UTF-8 to `path` on the page origin (missing folders are made).
    func write(_ path: String, _ text: String) throws {
        try write(.page(path), Data(text.utf8))
    }

    /// Writes `data` to `path` on the page origin (missing folders are made).
    func write(_ path: String, _ data: Data) throws {
        try write(.page(path), data)
    }

    /// Writes `text` as UTF-8 to `path` on the other origin.
    func writeOther(_ path: String, _ text: String) throws {
        try write(.other(path), Data(text.utf8))
    }

    /// Writes `data` to `path` on the other origin.
    func writeOther(_ path: String, _ data: Data) throws {
        try write(.other(path), data)
    }

    /// Writes `data` as `file`, replacing any file there.
    func write(_ file: WebPageFile, _ data: Data) throws {
        let location = fileURL(file)
        try FileManager.default.createDirectory(
            at: location.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.writeFile(data, to: location)
    }

    /// Writes every file of `fixture`.
    func write(_ fixture: WebPageFixture) throws {
        // Each folder made once, not once a file.
        let locations = fixture.files.map { (fileURL($0.key), $0.value) }
        for folder in Set(locations.map { $0.0.deletingLastPathComponent() }) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        for (location, data) in locations { try Self.writeFile(data, to: location) }
    }

    /// Writes with open(2) and write(2): Foundation's `Data.write(to:)` takes ten times as long a
    /// file here, which 10,000 images make seconds.
    private static func writeFile(_ data: Data, to location: URL) throws {
        let descriptor = open(location.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw InteropServersError.system("open(\(location.path))", errno: errno) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw InteropServersError.system("write(\(location.path))", errno: errno) }
    }

    /// Where `file` is on disk.
    func fileURL(_ file: WebPageFile) -> URL {
        let root = file.origin == .page ? site.pageRoot : site.otherRoot
        return root.appendingPathComponent(name, isDirectory: true).appendingPathComponent(file.path)
    }

    // MARK: - What was requested

    /// This folder's requests on both origins, oldest first, once every request already answered
    /// is logged (``WebPageSite/settledAccessLog()``). An entry's ``AccessLogEntry/serverPort``
    /// tells the origin; ``requestedFiles()`` reads them as files.
    func requests() throws -> [AccessLogEntry] {
        try site.settledAccessLog().filter(isInFolder)
    }

    /// This folder's requests that satisfy `predicate`, once there are at least `count` of them
    /// or `timeout` seconds have passed: for requests still being answered (a slow transfer).
    func requests(
        waitingFor count: Int, timeout: TimeInterval = 5, where predicate: (AccessLogEntry) -> Bool = { _ in true }
    ) -> [AccessLogEntry] {
        site.accessLog(waitingFor: count, timeout: timeout) { isInFolder($0) && predicate($0) }
    }

    /// The files requested in this folder, in log order, a file twice if it was requested twice.
    func requestedFiles() throws -> [WebPageFile] {
        try requests().compactMap(file(for:))
    }

    /// The paths requested on `origin` in this folder (relative, query included), in log order.
    func requestedPaths(on origin: WebPageFile.Origin = .page) throws -> [String] {
        try requestedFiles().filter { $0.origin == origin }.map(\.path)
    }

    /// The file `entry` asked for, or nil when it is not a request for this folder.
    func file(for entry: AccessLogEntry) -> WebPageFile? {
        guard isInFolder(entry) else { return nil }
        let path = String(entry.uri.dropFirst(name.count + 2))
        return entry.serverPort == site.pagePort ? .page(path) : .other(path)
    }

    private func isInFolder(_ entry: AccessLogEntry) -> Bool {
        entry.uri.hasPrefix("/\(name)/") && (entry.serverPort == site.pagePort || entry.serverPort == site.otherPort)
    }
}
