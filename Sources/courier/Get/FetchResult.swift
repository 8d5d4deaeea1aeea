import Foundation

/// How one request of a batch ended, as reported on its result line.
struct FetchResult: Sendable {
    /// What became of the response.
    enum Outcome: Sendable, Equatable {
        /// A 1xx–3xx response, its body saved to `file` (shown as `displayPath`); nil `file`
        /// for one written to standard output.
        case saved(file: URL?, displayPath: String)
        /// A response with a status of 400 or above: finished, as ASI counts it, but not what
        /// was asked for, so its body is not saved where a download would be expected.
        case rejected(reason: String)
        /// No usable response (`HTTPRequestError`), or the body could not be saved.
        case failed(reason: String)
        /// Nothing fetched or saved, and that is what was asked: the file of that name is kept
        /// (`--no-clobber`, or a 304 for `-N`). `why` is shown in brackets.
        case skipped(file: URL, displayPath: String, why: String)
    }

    /// The request this is the result of.
    let job: FetchJob
    /// Where the last attempt ended up, after redirects.
    var finalURL: URL
    /// The response's status code; 0 when none arrived.
    var statusCode: Int
    /// Body bytes: the saved file's size, else what the last attempt received.
    var byteCount: Int64
    /// Body bytes the last attempt received as they came off the network, compressed if the
    /// server compressed them: what the progress bar counts.
    var receivedBytes: Int64 = 0
    /// How long the last attempt took, as libcurl measured it.
    var seconds: Double
    /// How many times the request was sent (1 unless retried).
    var attempts: Int
    /// Bytes of a `.part` file the last attempt resumed from (0: from the start).
    var resumedFrom: Int64
    /// What became of the response.
    var outcome: Outcome
    /// Said after the figures: "already complete", "unchanged".
    var note: String?
    /// The status lines and headers of its responses, each block ending in an empty line, for
    /// `--include` (empty otherwise).
    var responseHead = ""

    /// True when the response was saved, or skipped as asked: the only results that let the
    /// batch exit 0.
    var isSuccess: Bool {
        switch outcome {
        case .saved, .skipped: true
        case .rejected, .failed: false
        }
    }

    /// Why the result is not a success, or nil.
    var failureReason: String? {
        switch outcome {
        case .saved, .skipped: nil
        case .rejected(let reason), .failed(let reason): reason
        }
    }
}
