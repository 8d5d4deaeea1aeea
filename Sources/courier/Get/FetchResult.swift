import Foundation

/// How one request of a batch ended, as reported on its result line.
struct FetchResult: Sendable {
    /// What became of the response.
    enum Outcome: Sendable, Equatable {
        /// A 1xx–3xx response, its body saved to `file` (shown as `displayPath`).
        case saved(file: URL, displayPath: String)
        /// A response with a status of 400 or above: finished, as ASI counts it, but not what
        /// was asked for, so its body is not saved where a download would be expected.
        case rejected
        /// No usable response (`HTTPRequestError`), or the body could not be saved.
        case failed(reason: String)
    }

    /// The request this is the result of.
    let job: FetchJob
    /// The response's status code; 0 when none arrived.
    let statusCode: Int
    /// Body bytes received.
    let byteCount: Int
    /// How long the transfer took, as libcurl measured it (the last attempt).
    let seconds: Double
    /// What became of the response.
    let outcome: Outcome

    /// True when the response was saved: the only result that lets the batch exit 0.
    var isSuccess: Bool {
        if case .saved = outcome { return true }
        return false
    }
}
