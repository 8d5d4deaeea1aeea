/// What a whole batch came to, once its last request is done (or the batch was interrupted).
struct BatchSummary: Sendable {
    /// One result per job that ended, in the order the jobs were given.
    let results: [FetchResult]
    /// How many jobs the batch had: more than `results` when it was interrupted.
    let jobCount: Int
    /// Wall-clock seconds from the first request queued to the last one done.
    let seconds: Double

    /// Body bytes received, as they came off the network (compressed, when they were), as the
    /// progress bar counts them: so the summary and the bar agree.
    var totalBytes: Int64 { results.reduce(0) { $0 + $1.receivedBytes } }

    /// The results that make the batch fail: no response, a status of 400 or above, or a body
    /// that could not be saved or decoded.
    var failures: [FetchResult] { results.filter { !$0.isSuccess } }

    /// 0 when every job's response was saved, else 1.
    var exitStatus: Int32 { failures.isEmpty && results.count == jobCount ? 0 : 1 }
}
