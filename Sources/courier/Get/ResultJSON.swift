import Courier
import Foundation

/// `--json`: one line per URL, a JSON object a script can read without parsing the result
/// lines. Passwords in URLs are masked as everywhere else courier prints.
///
/// ```json
/// {"attempts":1,"bytes":1000,"error":null,"file":"downloads/1000","final_url":"http://127.0.0.1:8080/bytes/1000","result":"saved","seconds":0.002,"status":200,"url":"http://127.0.0.1:8080/redirect/1/bytes/1000"}
/// ```
enum ResultJSON {
    private struct Record: Encodable {
        let url: String
        let finalURL: String
        let status: Int
        /// The file as the result line shows it; nil when nothing was saved.
        let file: String?
        let bytes: Int64
        let seconds: Double
        let attempts: Int
        /// "saved", "skipped", "rejected" (a status of 400 or above) or "failed".
        let result: String
        let error: String?

        enum CodingKeys: String, CodingKey {
            case url, status, file, bytes, seconds, attempts, result, error
            case finalURL = "final_url"
        }

        // Written by hand so that a missing file and a missing error are `null`, not left out:
        // a script can then read every key of every line.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(url, forKey: .url)
            try container.encode(finalURL, forKey: .finalURL)
            try container.encode(status, forKey: .status)
            try container.encode(file, forKey: .file)
            try container.encode(bytes, forKey: .bytes)
            try container.encode((seconds * 1000).rounded() / 1000, forKey: .seconds)
            try container.encode(attempts, forKey: .attempts)
            try container.encode(result, forKey: .result)
            try container.encode(error, forKey: .error)
        }
    }

    /// The line for one result.
    static func line(for result: FetchResult) -> String {
        let (kind, file): (String, String?) =
            switch result.outcome {
            case .saved(_, let displayPath): ("saved", displayPath)
            case .skipped(_, let displayPath, _): ("skipped", displayPath)
            case .rejected: ("rejected", nil)
            case .failed: ("failed", nil)
            }
        let record = Record(
            url: CredentialMask.url(result.job.url.absoluteString),
            finalURL: CredentialMask.url(result.finalURL.absoluteString), status: result.statusCode, file: file,
            bytes: result.byteCount, seconds: result.seconds, attempts: result.attempts, result: kind,
            error: result.failureReason)
        let encoder = JSONEncoder()
        // Sorted keys: the same key order on every line and every run, for diffs and greps.
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(record), as: UTF8.self)
        } catch {
            // Strings, integers and a finite double always encode; this keeps the line a JSON object.
            return #"{"error":"cannot encode the result","result":"failed"}"#
        }
    }
}
