import Courier
import Foundation

/// The lines `courier get` prints about requests: one per result, and the summary.
///
/// ```
/// ok   200     1048576 B  0.012 s   87.4 MB/s  http://127.0.0.1:8080/bytes/1048576 -> ./1048576
/// err  404          15 B  0.001 s   15.0 kB/s  http://127.0.0.1:8080/status/404 (not saved)
/// FAIL http://127.0.0.1:9/x: A connection failure occurred: Failed to connect to 127.0.0.1 port 9 …
/// 3 URLs: 1 saved, 2 failed; 1048591 bytes in 0.014 s (74.9 MB/s)
/// failed: http://127.0.0.1:8080/status/404: 404 Not Found
/// failed: http://127.0.0.1:9/x: A connection failure occurred: Failed to connect to 127.0.0.1 port 9 …
/// ```
enum ReportFormatter {
    /// The result line for one request.
    static func line(for result: FetchResult) -> String {
        let target = self.target(of: result)
        let figures =
            "\(result.statusCode)  \(padded(String(result.byteCount), to: 10)) B  \(seconds(result.seconds)) s  "
            + "\(padded(rate(bytes: result.byteCount, seconds: result.seconds), to: 11))  \(target)"
        var notes: [String] = []
        if result.attempts > 1 { notes.append("after \(result.attempts) tries") }
        if result.resumedFrom > 0 { notes.append("resumed from \(result.resumedFrom) B") }
        if let redirected = redirectNote(for: result) { notes.append(redirected) }
        if let note = result.note { notes.append(note) }
        if case .saved = result.outcome, result.note == nil, result.resumedFrom == 0, result.receivedBytes > 0,
            result.receivedBytes != result.byteCount
        {
            // A compressed body: the bar and the summary count what came off the network.
            notes.append("\(result.receivedBytes) B received")
        }
        let suffix = notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))"
        switch result.outcome {
        case .saved(_, let displayPath):
            return "ok   \(figures) -> \(displayPath)\(suffix)"
        case .rejected:
            return "err  \(figures) (not saved)\(suffix)"
        case .failed(let reason) where result.statusCode > 0:
            // A response arrived, but the request failed (a 401) or its body could not be saved.
            return "FAIL \(figures): \(reason)\(suffix)"
        case .failed(let reason):
            return "FAIL \(target): \(reason)\(suffix)"
        case .skipped(_, let displayPath, let why):
            return "skip \(target) -> \(displayPath) (\(why))"
        }
    }

    /// "5 URLs: 3 saved, 2 failed; 2071000 bytes in 0.014 s (74.9 MB/s)", the bytes as received.
    static func totals(of summary: BatchSummary) -> String {
        let saved = summary.results.filter(\.isSuccess).count
        let failed = summary.failures.count
        let count = summary.jobCount
        var counts = "\(saved) saved"
        let skipped = summary.results.filter { if case .skipped = $0.outcome { true } else { false } }.count
        if skipped > 0 { counts = "\(saved - skipped) saved, \(skipped) skipped" }
        if failed > 0 { counts += ", \(failed) failed" }
        let unfinished = count - summary.results.count
        if unfinished > 0 { counts += ", \(unfinished) unfinished" }
        return "\(count) URL\(count == 1 ? "" : "s"): \(counts); \(summary.totalBytes) bytes in "
            + "\(seconds(summary.seconds)) s (\(rate(bytes: summary.totalBytes, seconds: summary.seconds)))"
    }

    /// "failed: URL: reason", one per failure, in the order the URLs were given.
    static func failureLines(of summary: BatchSummary) -> [String] {
        summary.failures.map { "failed: \(target(of: $0)): \($0.failureReason ?? "")" }
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

    /// "404 Not Found", from the status line when there is one.
    static func reason(forStatus status: Int, statusLine: String?) -> String {
        if let statusLine, let space = statusLine.firstIndex(of: " ") {
            return String(statusLine[statusLine.index(after: space)...]).trimmingCharacters(in: .whitespaces)
        }
        return "status \(status)"
    }

    /// Bytes per second in decimal units, one decimal: "87.4 MB/s", "512.0 kB/s".
    static func rate(bytes: Int64, seconds: Double) -> String {
        guard seconds > 0 else { return "- B/s" }
        var value = Double(bytes) / seconds
        var unit = "B/s"
        for larger in ["kB/s", "MB/s", "GB/s"] where value >= 1000 {
            value /= 1000
            unit = larger
        }
        return String(format: "%.1f ", value) + unit
    }

    /// "redirected to URL" when the last try ended somewhere else than it was sent.
    static func redirectNote(for result: FetchResult) -> String? {
        guard result.finalURL != result.job.url else { return nil }
        return "redirected to " + CredentialMask.url(result.finalURL.absoluteString)
    }

    /// The URL as the lines show it: its password masked, and the method when not GET.
    private static func target(of result: FetchResult) -> String {
        let url = CredentialMask.url(result.job.url.absoluteString)
        return result.job.method == "GET" ? url : "\(result.job.method) \(url)"
    }

    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    private static func padded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
