import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Downloads to disk: renamed into place only on success, resumable, nothing half-written.
final class DownloadTests: ServerTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try makeTemporaryDirectory("courier-downloads")
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func contents(_ name: String) -> Data? { FileManager.default.contents(atPath: path(name)) }

    private func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path(name)) }

    func testThatABodyGoesToTheDestinationAndNotToMemory() {
        let request = HTTPRequest(url: server.url(.bytes(3_000_000)))
        request.downloadDestinationPath = path("file.bin")
        XCTAssertEqual(request.temporaryFileDownloadPath, path("file.bin") + ".download")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(contents("file.bin"), TestServer.deterministicBytes(count: 3_000_000))
        XCTAssertNil(request.responseData(), "the body is not in memory")
        XCTAssertFalse(exists("file.bin.download"), "the temporary file became the destination")
        XCTAssertEqual(request.totalBytesRead, 3_000_000)
    }

    func testThatAnOlderFileIsReplacedAndAnEmptyBodyMakesAnEmptyFile() throws {
        try Data("old".utf8).write(to: directory.appendingPathComponent("replace.bin"))
        let request = HTTPRequest(url: server.url(.bytes(10)))
        request.downloadDestinationPath = path("replace.bin")
        request.startSynchronous()
        XCTAssertEqual(contents("replace.bin"), TestServer.deterministicBytes(count: 10))

        let empty = HTTPRequest(url: server.url(.bytes(0)))
        empty.downloadDestinationPath = path("empty.bin")
        empty.startSynchronous()
        XCTAssertNil(empty.error)
        XCTAssertEqual(contents("empty.bin"), Data(), "an empty body makes an empty file")
    }

    func testThatNothingAppearsAtTheDestinationAfterAFailure() {
        let failures: [(String, Route?, (HTTPRequest) -> Void)] = [
            ("refused", nil, { _ in }),
            ("drop", .dropMidBody(200_000), { _ in }),
            ("timeout", .stall, { $0.timeOutSeconds = 0.3 }),
        ]
        for (name, route, configure) in failures {
            let url = route.map { server.url($0) } ?? Fixture.refusedURL
            let request = HTTPRequest(url: url)
            request.downloadDestinationPath = path(name)
            configure(request)
            request.startSynchronous()
            XCTAssertNotNil(request.error, name)
            XCTAssertFalse(exists(name), "\(name): nothing at the destination")
            XCTAssertFalse(exists(name + ".download"), "\(name): the partial file is gone")
        }

        let cancelled = HTTPRequest(url: server.url(.trickle(10_000, intervalMilliseconds: 5)))
        cancelled.downloadDestinationPath = path("cancelled")
        cancelled.setHeadersReceivedBlock { request, _ in request.cancel() }
        cancelled.startAsynchronous()
        waitUntil { cancelled.isFinished }
        XCTAssertEqual(cancelled.error?.type, .requestCancelled)
        XCTAssertFalse(exists("cancelled"))
        XCTAssertFalse(exists("cancelled.download"))
    }

    func testThatADroppedDownloadResumesToAnIdenticalFile() throws {
        let size = 400_000
        let dropped = HTTPRequest(url: server.url(.dropMidBody(size)))
        dropped.downloadDestinationPath = path("resumed.bin")
        dropped.allowResumeForFileDownloads = true
        dropped.startSynchronous()
        XCTAssertEqual(dropped.error?.type, .connectionFailure)
        XCTAssertFalse(exists("resumed.bin"))
        XCTAssertEqual(contents("resumed.bin.download")?.count, size / 2, "the first half was kept")

        let resumed = HTTPRequest(url: server.url(.bytes(size)))
        resumed.downloadDestinationPath = path("resumed.bin")
        resumed.allowResumeForFileDownloads = true
        let progress = RecordingProgress()
        resumed.downloadProgressDelegate = progress
        resumed.startSynchronous()
        XCTAssertNil(resumed.error)
        XCTAssertEqual(server.recordedRequests.last?.header("Range"), "bytes=\(size / 2)-")
        XCTAssertEqual(resumed.responseStatusCode, 206)
        XCTAssertEqual(resumed.partialDownloadSize, Int64(size / 2))
        XCTAssertEqual(resumed.contentLength, Int64(size / 2), "the length of the part that came")
        XCTAssertEqual(contents("resumed.bin"), TestServer.deterministicBytes(count: size))
        XCTAssertFalse(exists("resumed.bin.download"))
        XCTAssertEqual(progress.current.fractions.last, 1.0)
    }

    func testThatAServerThatIgnoresTheRangeStartsTheFileOver() throws {
        try Data(repeating: 0xFF, count: 1000).write(to: directory.appendingPathComponent("over.bin.download"))
        let request = HTTPRequest(url: server.url(.chunked(5000)))  // this route has no ranges
        request.downloadDestinationPath = path("over.bin")
        request.allowResumeForFileDownloads = true
        request.startSynchronous()
        XCTAssertEqual(request.responseStatusCode, 200)
        XCTAssertEqual(request.partialDownloadSize, 0)
        XCTAssertEqual(contents("over.bin"), TestServer.deterministicBytes(count: 5000))
    }

    func testThatRemoveTemporaryDownloadFileRemovesAKeptFile() throws {
        let request = HTTPRequest(url: server.url(.dropMidBody(10_000)))
        request.downloadDestinationPath = path("kept.bin")
        request.allowResumeForFileDownloads = true
        request.startSynchronous()
        XCTAssertTrue(exists("kept.bin.download"))
        try request.removeTemporaryDownloadFile()
        XCTAssertFalse(exists("kept.bin.download"))
        XCTAssertNoThrow(try request.removeTemporaryDownloadFile(), "removing nothing is fine")
    }

    func testThatAnUnwritableDestinationFailsWithFileManagement() {
        let request = HTTPRequest(url: server.url(.bytes(1000)))
        request.downloadDestinationPath = "/nonexistent-directory-courier/file.bin"
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .fileManagement)
        XCTAssertTrue(request.error?.message.contains("/nonexistent-directory-courier/file.bin.download") ?? false)
    }

    func testThatAFullDiskFailsWithFileManagementAndLeavesNothingAtTheDestination() throws {
        let request = HTTPRequest(url: server.url(.bytes(100_000)))
        request.downloadDestinationPath = path("full.bin")
        request.temporaryFileDownloadPath = try fullDevice()
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .fileManagement)
        XCTAssertTrue(
            request.error?.message.contains("No space left on device") ?? false, "\(String(describing: request.error))")
        XCTAssertFalse(exists("full.bin"))
    }

    /// A file that is always full: /dev/full, or one made like it (character device 1,7), since
    /// some containers have no /dev/full.
    private func fullDevice() throws -> String {
        var status = stat()
        if stat("/dev/full", &status) == 0, (status.st_mode & S_IFMT) == S_IFCHR { return "/dev/full" }
        let made = path("full-device")
        // dev_t for major 1, minor 7 in Linux's encoding: (major << 8) | minor for small numbers.
        guard mknod(made, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0 else {
            throw XCTSkip("neither /dev/full nor mknod (root) is available to simulate a full disk")
        }
        return made
    }

    func testThatTemporaryFileDownloadPathIsNilOnceTheFileIsInPlace() {
        let plain = HTTPRequest(url: server.url(.bytes(1000)))
        plain.downloadDestinationPath = path("plain.bin")
        XCTAssertEqual(plain.temporaryFileDownloadPath, path("plain.bin") + ".download", "before the move")
        plain.startSynchronous()
        XCTAssertNil(plain.error)
        XCTAssertEqual(contents("plain.bin"), TestServer.deterministicBytes(count: 1000))
        XCTAssertNil(plain.temporaryFileDownloadPath, "the temporary file became the destination")

        // ASI's testCompressedResponseDownloadToFile: inflated into place, lazily or as it arrived.
        for waits in [true, false] {
            let name = "gzipped-\(waits).bin"
            let gzipped = HTTPRequest(url: server.url(.gzipped(20_000)))
            gzipped.downloadDestinationPath = path(name)
            gzipped.temporaryFileDownloadPath = path(name + ".partial")
            gzipped.shouldWaitToInflateCompressedResponses = waits
            gzipped.startSynchronous()
            XCTAssertNil(gzipped.error, "waits \(waits)")
            XCTAssertEqual(contents(name), TestServer.deterministicBytes(count: 20_000), "waits \(waits)")
            XCTAssertNil(gzipped.temporaryFileDownloadPath, "waits \(waits)")
            XCTAssertFalse(exists(name + ".partial"), "waits \(waits)")
        }

        let failed = HTTPRequest(url: server.url(.dropMidBody(10_000)))
        failed.downloadDestinationPath = path("failed.bin")
        failed.allowResumeForFileDownloads = true
        failed.startSynchronous()
        XCTAssertNotNil(failed.error)
        XCTAssertEqual(failed.temporaryFileDownloadPath, path("failed.bin") + ".download", "kept for resuming")
    }

    func testThatAnErrorWhileResumingLeavesTheKeptPartWholeForTheNextTry() throws {
        let size = 300_000
        let partial = 100_000
        let kept = TestServer.deterministicBytes(count: partial)
        try kept.write(to: URL(fileURLWithPath: path("busy.bin.download")))
        // The server is busy: its 503 body must not replace the part already downloaded.
        let busy = HTTPRequest(url: server.url(.status(503)))
        busy.downloadDestinationPath = path("busy.bin")
        busy.allowResumeForFileDownloads = true
        busy.startSynchronous()
        XCTAssertNil(busy.error)
        XCTAssertEqual(busy.responseStatusCode, 503)
        XCTAssertEqual(contents("busy.bin.download"), kept, "the kept part is untouched")
        XCTAssertFalse(exists("busy.bin"), "an error is not the download")
        XCTAssertEqual(busy.responseString(), "status 503", "its body is the response's, in memory")

        let resumed = HTTPRequest(url: server.url(.bytes(size)))
        resumed.downloadDestinationPath = path("busy.bin")
        resumed.allowResumeForFileDownloads = true
        resumed.startSynchronous()
        XCTAssertNil(resumed.error)
        XCTAssertEqual(resumed.responseStatusCode, 206)
        XCTAssertEqual(contents("busy.bin"), TestServer.deterministicBytes(count: size))
    }

    func testThatAChallengesBodyNeverBecomesPartOfAResumableDownload() throws {
        // The proxy challenges first; the request answers with its credentials. Had the 407's
        // body gone to the temporary file, the second try would resume after it with a Range.
        let proxy = try TestServer(proxyCredentials: ProxyCredentials(user: "pro", password: "xy"))
        defer { proxy.stop() }
        let request = HTTPRequest(url: proxy.url(.bytes(3000)))
        request.proxyHost = "127.0.0.1"
        request.proxyPort = proxy.port
        request.proxyUsername = "pro"
        request.proxyPassword = "xy"
        request.downloadDestinationPath = path("proxied.bin")
        request.allowResumeForFileDownloads = true
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(proxy.proxyChallengesSent, 1)
        XCTAssertNil(proxy.recordedRequests.last?.header("Range"))
        XCTAssertEqual(contents("proxied.bin"), TestServer.deterministicBytes(count: 3000))
    }

    func testThatAChallengeThatFailsTheRequestLeavesItsBodyAtTheDestination() throws {
        let route = Route.basicAuth(user: "u", password: "p")
        let request = HTTPRequest(url: server.url(route))
        request.downloadDestinationPath = path("denied.txt")
        request.startSynchronous()
        XCTAssertEqual(request.error?.type, .authentication)
        XCTAssertEqual(request.responseStatusCode, 401)
        XCTAssertEqual(contents("denied.txt"), Data("credentials required".utf8), "the 401's body, as ASI kept it")
        XCTAssertFalse(exists("denied.txt.download"))

        // Resuming, the 401 is an error met on the way, as a 503 is: the kept part stays whole
        // for the next try and nothing else becomes the download.
        let kept = TestServer.deterministicBytes(count: 1000)
        try kept.write(to: URL(fileURLWithPath: path("kept.bin.download")))
        let resuming = HTTPRequest(url: server.url(route))
        resuming.downloadDestinationPath = path("kept.bin")
        resuming.allowResumeForFileDownloads = true
        resuming.startSynchronous()
        XCTAssertEqual(resuming.error?.type, .authentication)
        XCTAssertEqual(contents("kept.bin.download"), kept)
        XCTAssertFalse(exists("kept.bin"))
    }

    func testThatAResumedDownloadThatIsRedirectedAsksTheFinalURLForTheRest() throws {
        let size = 300_000
        let partial = 120_000
        try TestServer.deterministicBytes(count: partial).write(to: URL(fileURLWithPath: path("moved.bin.download")))
        let request = HTTPRequest(url: server.url(.redirect(302, to: "/bytes/\(size)")))
        request.downloadDestinationPath = path("moved.bin")
        request.allowResumeForFileDownloads = true
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(request.redirectCount, 1)
        let last = try XCTUnwrap(server.recordedRequests.last)
        XCTAssertEqual(last.target, "/bytes/\(size)")
        XCTAssertEqual(last.header("Range"), "bytes=\(partial)-", "the final URL is asked for the rest")
        XCTAssertEqual(request.requestHeaders["Range"], "bytes=\(partial)-", "and the request shows it (ASI)")
        XCTAssertEqual(request.responseStatusCode, 206)
        XCTAssertEqual(contents("moved.bin"), TestServer.deterministicBytes(count: size))
        XCTAssertFalse(exists("moved.bin.download"))
    }

    func testThatA416ForAKeptFileThatIsAlreadyWholePutsThatFileInPlace() throws {
        let size = 50_000
        try TestServer.deterministicBytes(count: size).write(to: URL(fileURLWithPath: path("whole.bin.download")))
        let request = HTTPRequest(url: server.url(.bytes(size)))
        request.downloadDestinationPath = path("whole.bin")
        request.allowResumeForFileDownloads = true
        request.startSynchronous()
        XCTAssertEqual(server.recordedRequests.last?.header("Range"), "bytes=\(size)-")
        XCTAssertEqual(request.responseStatusCode, 416)
        XCTAssertNil(request.error, "the request finishes")
        XCTAssertEqual(contents("whole.bin"), TestServer.deterministicBytes(count: size), "the kept file")
        XCTAssertFalse(exists("whole.bin.download"))
        XCTAssertNil(request.temporaryFileDownloadPath)

        // A kept file longer than the entity is some other file: it stays where it is, untouched,
        // and nothing appears at the destination.
        try Data(repeating: 0xAB, count: size + 10).write(to: URL(fileURLWithPath: path("other.bin.download")))
        let other = HTTPRequest(url: server.url(.bytes(size)))
        other.downloadDestinationPath = path("other.bin")
        other.allowResumeForFileDownloads = true
        other.startSynchronous()
        XCTAssertEqual(other.responseStatusCode, 416)
        XCTAssertFalse(exists("other.bin"))
        XCTAssertEqual(contents("other.bin.download"), Data(repeating: 0xAB, count: size + 10))
    }

    func testThatARedirectedDownloadHoldsOnlyTheFinalBody() {
        let request = HTTPRequest(url: server.url(.redirect(301, to: "/bytes/5000")))
        request.downloadDestinationPath = path("redirected.bin")
        request.startSynchronous()
        XCTAssertNil(request.error)
        XCTAssertEqual(contents("redirected.bin"), TestServer.deterministicBytes(count: 5000))
        XCTAssertNotEqual(request.originalURL, request.url)
    }
}
