import Courier
import Foundation
import XCTest

/// Where a test sends a response body: the three body modes a framing or coding fault must be
/// caught in.
enum BodyMode: CaseIterable, CustomStringConvertible {
    /// Kept in memory (`responseData()`).
    case memory
    /// Written to `downloadDestinationPath`.
    case download
    /// Handed to a data delegate (`request(_:didReceive:)`), not stored.
    case dataDelegate

    var description: String {
        switch self {
        case .memory: "memory"
        case .download: "download"
        case .dataDelegate: "data delegate"
        }
    }
}

/// Counts a request's final callbacks and the body bytes its data delegate saw. Callbacks come
/// on the request's callback queue; the counts are locked.
class OutcomeDelegate: HTTPRequestDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var counts = (finished: 0, failed: 0, bytes: 0)
    let ended = XCTestExpectation(description: "finished or failed")

    var finished: Int { lock.withLock { counts.finished } }
    var failed: Int { lock.withLock { counts.failed } }
    var bytesDelivered: Int { lock.withLock { counts.bytes } }

    func requestFinished(_ request: HTTPRequest) {
        lock.withLock { counts.finished += 1 }
        ended.fulfill()
    }

    func requestFailed(_ request: HTTPRequest) {
        lock.withLock { counts.failed += 1 }
        ended.fulfill()
    }

    fileprivate func add(_ count: Int) { lock.withLock { counts.bytes += count } }
}

/// An `OutcomeDelegate` that takes the body itself, so the request streams it.
final class StreamingOutcomeDelegate: OutcomeDelegate, HTTPRequestDataDelegate, @unchecked Sendable {
    func request(_ request: HTTPRequest, didReceive data: Data) { add(data.count) }
}

/// One asynchronous run of a request in a body mode, with what a user would see of it.
struct OutcomeRun {
    let request: HTTPRequest
    let delegate: OutcomeDelegate
    /// The download destination, for `.download`.
    let destination: String?

    /// Runs `url` in `mode` on a private callback queue and waits for its end, then a short grace
    /// period in which no second final callback may come.
    static func run(
        _ url: URL, mode: BodyMode, in directory: URL, timeout: TimeInterval = 10, grace: TimeInterval = 0.3,
        configure: (HTTPRequest) -> Void = { _ in }
    ) -> OutcomeRun {
        let request = HTTPRequest(url: url)
        let delegate: OutcomeDelegate = mode == .dataDelegate ? StreamingOutcomeDelegate() : OutcomeDelegate()
        request.delegate = delegate
        request.callbackQueue = DispatchQueue(label: "courier.tests.outcome")
        request.timeOutSeconds = 5
        var destination: String?
        if mode == .download {
            destination = directory.appendingPathComponent("download-\(UUID().uuidString).bin").path
            request.downloadDestinationPath = destination
        }
        configure(request)
        request.startAsynchronous()
        let result = XCTWaiter().wait(for: [delegate.ended], timeout: timeout)
        XCTAssertEqual(result, .completed, "\(url) in \(mode) did not end within \(timeout) s")
        // A second final callback would come soon after the first, if at all.
        if grace > 0 { Thread.sleep(forTimeInterval: grace) }
        return OutcomeRun(request: request, delegate: delegate, destination: destination)
    }

    /// Exactly one failure, of `type`, with nothing of the body handed out: no file at the
    /// destination or beside it, no bytes to a data delegate, no body in memory.
    func assertFailed(
        with type: NetworkErrorType, messageContains text: String? = nil, _ context: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let error = request.error
        XCTAssertEqual(error?.type, type, "\(context): \(String(describing: error))", file: file, line: line)
        if let text {
            XCTAssertTrue(
                error?.message.contains(text) == true, "\(context): \(String(describing: error?.message))", file: file,
                line: line)
        }
        XCTAssertEqual(delegate.failed, 1, "\(context): one failure callback", file: file, line: line)
        XCTAssertEqual(delegate.finished, 0, "\(context): no finish callback", file: file, line: line)
        if let destination {
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination), context, file: file, line: line)
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: destination + ".download"), "\(context): temporary file",
                file: file, line: line)
        }
    }

    /// Exactly one finish callback and no failure.
    func assertFinished(_ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNil(request.error, "\(context): \(String(describing: request.error))", file: file, line: line)
        XCTAssertEqual(delegate.finished, 1, "\(context): one finish callback", file: file, line: line)
        XCTAssertEqual(delegate.failed, 0, "\(context): no failure callback", file: file, line: line)
    }

    /// The body the user got, whatever the mode: memory, the downloaded file, or (for a data
    /// delegate) only its length is known, so nil.
    var body: Data? {
        if let destination { return FileManager.default.contents(atPath: destination) }
        return delegate is StreamingOutcomeDelegate ? nil : request.responseData()
    }
}
