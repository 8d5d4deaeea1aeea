import Courier
import Foundation

/// The one line every benchmark client prints.
struct BenchReport {
    var requests = 0
    var bytes: Int64 = 0
    var errors = 0
    var wall: TimeInterval = 0
    var firstError: String?
    /// `queued` only: resident memory grown by the requests added before `go()`.
    var queuedKiB: Int?

    var line: String {
        let status = errors == 0 ? "ok" : "fail"
        let line = "\(status) requests=\(requests) bytes=\(bytes) errors=\(errors) wall=\(String(format: "%.3f", wall))"
        return queuedKiB.map { line + " queued_kib=\($0)" } ?? line
    }

    mutating func record(_ request: HTTPRequestOutcome) {
        requests += 1
        bytes += request.bytes
        if let error = request.error {
            errors += 1
            if firstError == nil { firstError = error }
        }
    }
}

/// What one request contributed.
struct HTTPRequestOutcome {
    var bytes: Int64
    var error: String?

    /// A finished request's bytes; its error, or an HTTP status of 400 or more, is a failure.
    init(_ request: HTTPRequest, bytes: Int64) {
        self.bytes = bytes
        let status = request.responseStatusCode
        error = request.error.map { "\($0)" } ?? (status >= 400 ? "HTTP \(status)" : nil)
    }
}
