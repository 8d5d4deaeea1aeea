/// What a whole batch came to, once its last request is done.
struct BatchSummary: Sendable {
    /// One result per job, in the order the jobs were given.
    let results: [FetchResult]
    /// Wall-clock seconds from the first request queued to the last one done.
    let seconds: Double

    /// Body bytes received, saved or not.
    var totalBytes: Int { results.reduce(0) { $0 + $1.byteCount } }

    /// The results that make the batch fail: no response, a status of 400 or above, or a body
    /// that could not be saved.
    var failures: [FetchResult] { results.filter { !$0.isSuccess } }

    /// 0 when every request's response was saved, else 1.
    var exitStatus: Int32 { failures.isEmpty ? 0 : 1 }
}
