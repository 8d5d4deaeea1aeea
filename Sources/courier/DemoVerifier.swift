import CourierTestServer
import Foundation

/// Checks the files the demo saved against what `TestServer` is documented to send: the bytes
/// and chunked routes against `TestServer.deterministicBytes(count:)`, the echo route against
/// the body that was posted.
enum DemoVerifier {
    /// One line per saved file saying whether it matched, and whether all did.
    static func verify(_ summary: BatchSummary) -> (lines: [String], allVerified: Bool) {
        var lines: [String] = []
        var allVerified = summary.failures.isEmpty
        for result in summary.results {
            guard case .saved(let file, _) = result.outcome else { continue }
            let (matches, description) = check(file: file, job: result.job)
            allVerified = allVerified && matches
            lines.append("\(matches ? "verified" : "MISMATCH") \(file.lastPathComponent): \(description)")
        }
        lines.append(
            allVerified
                ? "verified: all \(summary.results.count) responses are exactly what the server sent"
                : "NOT verified: see the lines above")
        return (lines, allVerified)
    }

    private static func check(file: URL, job: FetchJob) -> (matches: Bool, description: String) {
        guard let saved = try? Data(contentsOf: file) else { return (false, "cannot read the saved file") }
        let target = job.url.path + (job.url.query.map { "?" + $0 } ?? "")
        let route = Route(path: target)
        if let count = route?.deterministicByteCount {
            let matches = saved == TestServer.deterministicBytes(count: count)
            return (matches, "\(saved.count) B \(matches ? "==" : "!=") TestServer.deterministicBytes(count: \(count))")
        }
        if route == .echo {
            guard let reply = try? JSONDecoder().decode(EchoReply.self, from: saved), let received = reply.bodyData
            else {
                return (false, "the echo reply is not the JSON the route documents")
            }
            let matches = reply.method == job.method && received == (job.body ?? Data())
            return (
                matches,
                "the server received the \(reply.bodyLength)-byte \(reply.method) body "
                    + (matches ? "intact" : "altered")
            )
        }
        return (false, "the demo does not know what \(target) should contain")
    }
}
