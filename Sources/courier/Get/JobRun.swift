import Courier
import Foundation

/// One job of a batch while it runs: its name in the folder, its attempts, and the request of
/// the current one. A retry is a new request for the same run.
///
/// Main-actor isolated: every request of a batch calls back on the main queue.
@MainActor
final class JobRun {
    let index: Int
    let job: FetchJob
    /// The name reserved for the file (nil for standard output, or before it is reserved).
    var name: String?
    /// Where the finished body is renamed to by Courier, before it gets its name.
    var stagingPath: String?
    /// Tries sent so far.
    var attempts = 0
    /// The request of the current try.
    var request: HTTPRequest?
    /// A retry waiting for its backoff.
    var pendingRetry: DispatchWorkItem?
    /// Body bytes written to standard output (`-O -`): once there are some, no retry can take
    /// them back.
    var bytesWritten: Int64 = 0
    /// Whether the current response's body goes to standard output (not an error status).
    var writesBody = false
    /// `-c`: a file already at the URL's name, with no `.part` beside it, and its size. A HEAD
    /// tells whether it is complete before anything is downloaded again.
    var existingFile: (name: String, size: Int64)?
    /// That HEAD, while it runs.
    var probe: HTTPRequest?
    /// When the current try was sent, for a try that ended before libcurl timed it.
    var triedAt = Date()
    /// True once its result is recorded.
    var isDone = false
    /// Why courier itself cancelled the current try (`--max-time`, `--speed-limit`, a header
    /// file that cannot be written), and whether another try may help; nil otherwise.
    var abort: (reason: String, isRetryable: Bool)?
    /// The current try's `--max-time` and `--speed-limit` clock, once it has started.
    var limitWatch: TransferLimitWatch?
    /// The status lines and headers of the current try's responses, for `--include`.
    var responseHead = ""

    init(index: Int, job: FetchJob) {
        self.index = index
        self.job = job
    }

    /// The `.part` file of the download, in `folder`.
    func partPath(in folder: OutputFolder) -> String? {
        name.map { folder.path(of: $0 + ".part") }
    }
}
