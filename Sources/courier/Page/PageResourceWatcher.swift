import Courier

/// The page's delegate, which WebPageRequest lets hear each resource's end: it counts what was
/// saved and keeps what failed, for the result line and the failure lines after it.
@MainActor
final class PageResourceWatcher: HTTPRequestDelegate {
    /// The page itself, whose own end the command's blocks handle.
    weak var page: HTTPRequest?
    /// Resources fetched with a status below 400.
    private(set) var savedCount = 0
    /// "URL: reason" for each resource that failed or answered 400 or above, in the order they ended.
    private(set) var failures: [String] = []

    nonisolated func requestFinished(_ request: HTTPRequest) {
        MainActor.assumeIsolated {
            guard request !== page else { return }
            if request.responseStatusCode >= 400 {
                let status = ReportFormatter.reason(
                    forStatus: request.responseStatusCode, statusLine: request.responseStatusMessage)
                failures.append("\(Self.target(of: request)): \(status)")
            } else {
                savedCount += 1
            }
        }
    }

    nonisolated func requestFailed(_ request: HTTPRequest) {
        MainActor.assumeIsolated {
            guard request !== page else { return }
            // Those the page's own failure or Ctrl-C cancelled say nothing about the resource.
            if request.error?.type == .requestCancelled { return }
            failures.append("\(Self.target(of: request)): \(ReportFormatter.reason(for: request.error))")
        }
    }

    private static func target(of request: HTTPRequest) -> String {
        CredentialMask.url((request.originalURL ?? request.url).absoluteString)
    }
}
