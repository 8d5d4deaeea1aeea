import Courier
import Foundation

/// The lines `courier` prints about requests: one per result, and the summary.
///
/// ```
/// ok   200     1048576 B  0.012 s   87.4 MB/s  http://127.0.0.1:8080/bytes/1048576 -> ./1048576
/// err  404          15 B  0.001 s   15.0 kB/s  http://127.0.0.1:8080/status/404 (not saved)
/// FAIL http://127.0.0.1:9/x: A connection failure occurred: Failed to connect to 127.0.0.1 port 9 …
/// FAIL 401          15 B  0.001 s   15.0 kB/s  http://127.0.0.1:8080/status/401: Authentication needed
/// 4 requests, 1048606 bytes, 0.014 s (74.9 MB/s)
/// failed: http://127.0.0.1:8080/status/404 http://127.0.0.1:9/x http://127.0.0.1:8080/status/401
/// ```
enum ReportFormatter {
    /// The result line for one request.
    static func line(for result: FetchResult) -> String {
        let url = CredentialMask.url(result.job.url.absoluteString)
        let target = result.job.method == "GET" ? url : "\(result.job.method) \(url)"
        let figures =
            "\(result.statusCode)  \(padded(String(result.byteCount), to: 10)) B  \(seconds(result.seconds)) s  "
            + "\(padded(rate(bytes: result.byteCount, seconds: result.seconds), to: 11))  \(target)"
        switch result.outcome {
        case .saved(_, let displayPath):
            return "ok   \(figures) -> \(displayPath)"
        case .rejected:
            return "err  \(figures) (not saved)"
        case .failed(let reason) where result.statusCode > 0:
            // A response arrived, but the request failed (a 401) or its body could not be saved.
            return "FAIL \(figures): \(reason)"
        case .failed(let reason):
            return "FAIL \(target): \(reason)"
        }
    }

    /// The summary lines: totals, then the failed URLs if any.
    static func summaryLines(for summary: BatchSummary) -> [String] {
        let count = summary.results.count
        var lines = [
            "\(count) request\(count == 1 ? "" : "s"), \(summary.totalBytes) bytes, \(seconds(summary.seconds)) s "
                + "(\(rate(bytes: summary.totalBytes, seconds: summary.seconds)))"
        ]
        let failures = summary.failures
        if !failures.isEmpty {
            let urls = failures.map { CredentialMask.url($0.job.url.absoluteString) }
            lines.append("failed: " + urls.joined(separator: " "))
        }
        return lines
    }

    /// What went wrong, for a `FAIL` line: the error's description without the URL it ends with,
    /// since the line already starts with it.
    static func reason(for error: HTTPRequestError?) -> String {
        guard let error else { return "failed without an error" }
        var text = error.description
        if let failingURL = error.url {
            let suffix = " (\(CredentialMask.url(failingURL.absoluteString)))"
            if text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        }
        return text
    }

    /// Bytes per second in decimal units, one decimal: "87.4 MB/s", "512.0 kB/s".
    static func rate(bytes: Int, seconds: Double) -> String {
        guard seconds > 0 else { return "- B/s" }
        var value = Double(bytes) / seconds
        var unit = "B/s"
        for larger in ["kB/s", "MB/s", "GB/s"] where value >= 1000 {
            value /= 1000
            unit = larger
        }
        return String(format: "%.1f ", value) + unit
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    private static func padded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
