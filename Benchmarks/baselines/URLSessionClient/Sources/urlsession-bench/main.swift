// urlsession-bench: the URLSession baseline for Courier's benchmarks (see Benchmarks/README.md).
//
//   urlsession-bench get URL N C        N GETs, C tasks in flight, bodies counted and dropped
//   urlsession-bench download URL FILE  one GET whose body is written to FILE as it arrives
//   urlsession-bench upload URL FILE    one PUT streamed from FILE (uploadTask(with:fromFile:))
//
// Prints `ok requests=R bytes=B errors=0 wall=S` and exits 0, or `fail …` and the first error on
// the next line and exits 1 (2 for a usage error). S is the seconds from the first task resumed
// to the last one completed. A transport error or an HTTP status of 400 or more is an error.
//
// Environment: BENCH_H2=1 says the URL is https with HTTP/2; URLSession has no switch for it, and
// libcurl under FoundationNetworking negotiates HTTP/2 by ALPN on its own. BENCH_INSECURE=1
// cannot be honoured: FoundationNetworking on Linux never asks its delegate about server trust
// and sets no CURLOPT_SSL_VERIFYPEER, so certificates are always checked against libcurl's CA
// bundle (Benchmarks/run.sh puts its test CA there for this process alone).
import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one line every benchmark client prints.
struct Report {
    var requests = 0
    var bytes: Int64 = 0
    var errors = 0
    var wall: TimeInterval = 0
    var firstError: String?

    var line: String {
        "\(errors == 0 ? "ok" : "fail") requests=\(requests) bytes=\(bytes) errors=\(errors) wall=\(String(format: "%.3f", wall))"
    }

    /// Counts one finished task: a transport error, an HTTP error status, or a success.
    mutating func record(_ task: URLSessionTask, error: Error?) {
        requests += 1
        var failure: String?
        if let error {
            failure = "\(error)"
        } else if let response = task.response as? HTTPURLResponse, response.statusCode >= 400 {
            failure = "HTTP \(response.statusCode)"
        }
        if let failure {
            errors += 1
            if firstError == nil { firstError = failure }
        }
    }
}

/// A session set up the same way for every benchmark: no cache (every request goes to the
/// server), C connections per host, a serial delegate queue.
func makeSession(inFlight: Int, delegate: URLSessionDelegate) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpMaximumConnectionsPerHost = inFlight
    configuration.timeoutIntervalForRequest = 60
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    queue.name = "urlsession-bench.delegate"
    return URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
}

/// N GETs with C data tasks kept in flight: each completion starts the next task. Bodies are
/// counted in `didReceive data` and dropped.
final class GetRun: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `started`, `report` and `startTime` are touched only on the session's
    // serial delegate queue, and read by `run()` after `done` is signalled.
    private let url: URL
    private let count: Int
    private let inFlight: Int
    private var started = 0
    private var report = Report()
    private var startTime = Date()
    private let done = DispatchSemaphore(value: 0)

    init(url: URL, count: Int, inFlight: Int) {
        self.url = url
        self.count = count
        self.inFlight = inFlight
    }

    func run() -> Report {
        let session = makeSession(inFlight: inFlight, delegate: self)
        session.delegateQueue.addOperation {
            self.startTime = Date()
            for _ in 0..<min(self.count, self.inFlight) { self.startTask(in: session) }
        }
        done.wait()
        session.finishTasksAndInvalidate()
        return report
    }

    private func startTask(in session: URLSession) {
        started += 1
        session.dataTask(with: url).resume()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        report.bytes += Int64(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        report.record(task, error: error)
        if started < count { startTask(in: session) }
        if report.requests == count {
            report.wall = Date().timeIntervalSince(startTime)
            done.signal()
        }
    }
}

/// One GET whose body goes to a file as it arrives (a data task writing through a FileHandle,
/// as the other clients write each chunk to the file).
final class DownloadRun: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `report` and `file` are touched only on the serial delegate queue
    // after `run()` resumes the task, and read after `done` is signalled.
    private let url: URL
    private let file: FileHandle
    private var report = Report()
    private var writeError: String?
    private let done = DispatchSemaphore(value: 0)

    init(url: URL, file: FileHandle) {
        self.url = url
        self.file = file
    }

    func run() -> Report {
        let session = makeSession(inFlight: 1, delegate: self)
        let started = Date()
        session.dataTask(with: url).resume()
        done.wait()
        report.wall = Date().timeIntervalSince(started)
        session.finishTasksAndInvalidate()
        return report
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard writeError == nil else { return }
        do {
            try file.write(contentsOf: data)
            report.bytes += Int64(data.count)
        } catch {
            writeError = "write: \(error)"
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        do { try file.close() } catch { if writeError == nil { writeError = "close: \(error)" } }
        report.record(task, error: error)
        if let writeError {
            if report.errors == 0 { report.errors = 1 }
            report.firstError = writeError
        }
        done.signal()
    }
}

/// One PUT from a file through `uploadTask(with:fromFile:)`.
final class UploadRun: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked Sendable: `report` is touched only on the serial delegate queue, and read after
    // `done` is signalled.
    private let url: URL
    private let file: URL
    private var report = Report()
    private let done = DispatchSemaphore(value: 0)

    init(url: URL, file: URL) {
        self.url = url
        self.file = file
    }

    func run() -> Report {
        let session = makeSession(inFlight: 1, delegate: self)
        var request = URLRequest(url: url)
        request.httpMethod = "PUT"
        let started = Date()
        session.uploadTask(with: request, fromFile: file).resume()
        done.wait()
        report.wall = Date().timeIntervalSince(started)
        session.finishTasksAndInvalidate()
        return report
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        report.record(task, error: error)
        report.bytes = task.countOfBytesSent
        done.signal()
    }
}

// MARK: - Command line

let usage = """
    usage: urlsession-bench get URL N C
           urlsession-bench download URL FILE
           urlsession-bench upload URL FILE
    environment: BENCH_H2=1 (https; HTTP/2 comes by ALPN), BENCH_INSECURE=1 (not supported on Linux)
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("urlsession-bench: \(message)\n\(usage)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, let url = URL(string: arguments[1]), url.host != nil else { fail("a command and a URL are needed") }
if ProcessInfo.processInfo.environment["BENCH_INSECURE"] == "1" {
    FileHandle.standardError.write(
        Data(
            "urlsession-bench: BENCH_INSECURE=1 is ignored: FoundationNetworking on Linux always checks certificates\n"
                .utf8))
}

let report: Report
switch (arguments[0], arguments.count) {
case ("get", 4):
    guard let count = Int(arguments[2]), let inFlight = Int(arguments[3]), count > 0, inFlight > 0 else {
        fail("get needs URL N C, positive numbers")
    }
    report = GetRun(url: url, count: count, inFlight: inFlight).run()
case ("download", 3):
    guard FileManager.default.createFile(atPath: arguments[2], contents: nil),
        let file = FileHandle(forWritingAtPath: arguments[2])
    else { fail("cannot create \(arguments[2])") }
    report = DownloadRun(url: url, file: file).run()
case ("upload", 3):
    guard FileManager.default.isReadableFile(atPath: arguments[2]) else { fail("cannot read \(arguments[2])") }
    report = UploadRun(url: url, file: URL(fileURLWithPath: arguments[2])).run()
default:
    fail("unknown command or wrong number of arguments")
}
print(report.line)
if let firstError = report.firstError { print(firstError) }
exit(report.errors == 0 ? 0 : 1)
