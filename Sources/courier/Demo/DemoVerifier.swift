import CourierTestServer
import Foundation

/// Checks the files the demo saved against what `TestServer` is documented to send, one line per
/// item.
enum DemoVerifier {
    /// One line per item saying whether it matched, and whether all did.
    static func verify(_ summary: BatchSummary, items: [DemoItem]) -> (lines: [String], allVerified: Bool) {
        var lines: [String] = []
        var allVerified = summary.failures.isEmpty && summary.results.count == items.count
        for (result, item) in zip(summary.results, items) {
            guard case .saved(let file?, _) = result.outcome else {
                lines.append("MISSING \(item.title): \(result.failureReason ?? "not saved")")
                allVerified = false
                continue
            }
            var (matches, description) = check(file: file, against: item.expectation)
            if item.mustResume {
                let resumed = result.resumedFrom > 0
                matches = matches && resumed
                description += resumed ? ", resumed from \(result.resumedFrom) B" : ", but NOT resumed"
            }
            allVerified = allVerified && matches
            lines.append(
                "\(matches ? "verified" : "MISMATCH") \(item.title) (\(file.lastPathComponent)): \(description)")
        }
        lines.append(
            allVerified
                ? "verified: all \(items.count) responses are exactly what the server sent"
                : "NOT verified: see the lines above")
        return (lines, allVerified)
    }

    private static func check(file: URL, against expectation: DemoItem.Expectation) -> (Bool, String) {
        guard let saved = try? Data(contentsOf: file) else { return (false, "cannot read the saved file") }
        switch expectation {
        case .deterministicBytes(let count):
            let matches = saved == TestServer.deterministicBytes(count: count)
            return (matches, "\(saved.count) B \(matches ? "==" : "!=") TestServer.deterministicBytes(count: \(count))")
        case .echoOfBody(let body):
            guard let reply = try? JSONDecoder().decode(EchoReply.self, from: saved), let received = reply.bodyData
            else {
                return (false, "the echo reply is not the JSON the route documents")
            }
            let matches = reply.method == "POST" && received == body
            return (
                matches, "the server received the \(reply.bodyLength)-byte POST body \(matches ? "intact" : "altered")"
            )
        case .echoOfForm(let field, let file):
            guard let reply = try? JSONDecoder().decode(EchoReply.self, from: saved), let received = reply.bodyData
            else {
                return (false, "the echo reply is not the JSON the route documents")
            }
            let fieldPart = Data("name=\"\(field.key)\"\r\n\r\n\(field.value)\r\n".utf8)
            let hasField = received.range(of: fieldPart) != nil
            let hasFile =
                received.range(of: Data("name=\"\(file.key)\"".utf8)) != nil
                && received.range(of: file.contents) != nil
            let matches = reply.method == "POST" && hasField && hasFile
            return (
                matches,
                "the server received a \(reply.bodyLength)-byte multipart body "
                    + (matches
                        ? "with the field and the \(file.contents.count)-byte file intact" : "without them intact")
            )
        }
    }
}
