import Courier
import CourierTestServer
import CourierTestSupport
import XCTest

/// Where a fault test's request puts the body it is sent.
enum FaultSink: CaseIterable, CustomStringConvertible {
    /// In memory (`responseData()`).
    case memory
    /// To `downloadDestinationPath`, without resuming: nothing may be left on disk.
    case file
    /// To `downloadDestinationPath` with `allowResumeForFileDownloads`: the temporary file may stay.
    case resumableFile

    var description: String {
        switch self {
        case .memory: "memory"
        case .file: "file"
        case .resumableFile: "resumable file"
        }
    }
}

/// Counts the two ends of a request, from its delegate and its blocks, on whichever queue they come.
final class EndCounter: HTTPRequestDelegate, @unchecked Sendable {
    // @unchecked Sendable: the log is locked.
    let log = EventLog()

    func requestFinished(_ request: HTTPRequest) { log.add("delegate.finished") }
    func requestFailed(_ request: HTTPRequest) { log.add("delegate.failed") }

    /// Also counts the request's completion and failure blocks.
    func watch(_ request: HTTPRequest) {
        request.delegate = self
        request.setCompletionBlock { [log] _ in log.add("block.finished") }
        request.setFailedBlock { [log] _ in log.add("block.failed") }
    }

    func count(_ entry: String) -> Int { log.all.filter { $0 == entry }.count }
    var ends: Int { log.all.count }
}

extension FaultTests {
    /// The grace period after the failure in which no second callback may come.
    static let grace: TimeInterval = 0.3

    /// Runs a request to `url` asynchronously and asserts what a user sees of a fault: exactly one
    /// failure (delegate and block each once, no finish), of `type`, within `timeout` seconds, none
    /// more within ``grace``, and for a download no file at the destination (and, unless it may
    /// resume, no temporary file either). Returns the request, and the download path for file sinks.
    @discardableResult
    func assertOneFailure(
        _ url: URL, _ type: NetworkErrorType, sink: FaultSink = .memory, within timeout: TimeInterval = 5,
        configure: (HTTPRequest) -> Void = { _ in }, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (request: HTTPRequest, destination: String?) {
        let what = "\(url.path)\(url.query.map { "?" + $0.prefix(60) } ?? "") to \(sink)"
        let request = HTTPRequest(url: url)
        request.timeOutSeconds = 2
        var destination: String?
        if sink != .memory {
            let path = try makeTemporaryDirectory("courier-faults").appendingPathComponent("body.bin").path
            request.downloadDestinationPath = path
            request.allowResumeForFileDownloads = sink == .resumableFile
            destination = path
        }
        configure(request)
        let counter = EndCounter()
        counter.watch(request)
        let started = Date()
        request.startAsynchronous()
        waitUntil(timeout: timeout, message: "\(what): no callback", file: file, line: line) { counter.ends >= 2 }
        let elapsed = Date().timeIntervalSince(started)
        spinMainQueue(for: Self.grace)
        if counter.ends == 0 { request.clearDelegatesAndCancel() }
        XCTAssertEqual(counter.count("delegate.failed"), 1, "\(what): \(counter.log.all)", file: file, line: line)
        XCTAssertEqual(counter.count("block.failed"), 1, "\(what): \(counter.log.all)", file: file, line: line)
        XCTAssertEqual(counter.ends, 2, "\(what): no other callback: \(counter.log.all)", file: file, line: line)
        XCTAssertEqual(
            request.error?.type, type, "\(what): \(String(describing: request.error))", file: file, line: line)
        XCTAssertLessThan(elapsed, timeout, "\(what) took too long", file: file, line: line)
        XCTAssertTrue(request.isFinished, "\(what): the operation finished", file: file, line: line)
        if let destination {
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: destination), "\(what): nothing at the destination", file: file,
                line: line)
            if sink == .file {
                XCTAssertFalse(
                    FileManager.default.fileExists(
                        atPath: request.temporaryFileDownloadPath ?? destination + ".download"),
                    "\(what): no temporary file", file: file, line: line)
            }
        }
        return (request, destination)
    }

    /// ``assertOneFailure(_:_:sink:within:configure:file:line:)`` for each of `sinks`.
    func assertOneFailureEverywhere(
        _ url: URL, _ type: NetworkErrorType, sinks: [FaultSink] = FaultSink.allCases,
        within timeout: TimeInterval = 5, configure: (HTTPRequest) -> Void = { _ in },
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for sink in sinks {
            try assertOneFailure(url, type, sink: sink, within: timeout, configure: configure, file: file, line: line)
        }
    }
}
