import Courier
import Foundation

/// One large transfer: a download to a file, or a PUT streamed from one.
enum TransferBenchmark {
    static func download(url: URL, to file: String, configure: (HTTPRequest) -> Void) -> BenchReport {
        let request = HTTPRequest(url: url)
        configure(request)
        request.downloadDestinationPath = file
        return measure(request) { $0.totalBytesRead }
    }

    static func upload(url: URL, from file: String, configure: (HTTPRequest) -> Void) -> BenchReport {
        let request = HTTPRequest(url: url)
        configure(request)
        request.requestMethod = "PUT"
        request.postBodyFilePath = file
        return measure(request) { $0.totalBytesSent }
    }

    private static func measure(_ request: HTTPRequest, bytes: (HTTPRequest) -> Int64) -> BenchReport {
        let started = Date()
        request.startSynchronous()
        var report = BenchReport()
        report.wall = Date().timeIntervalSince(started)
        report.record(HTTPRequestOutcome(request, bytes: bytes(request)))
        return report
    }
}
