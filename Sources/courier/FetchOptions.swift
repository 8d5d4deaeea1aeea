/// The flags `get` and `demo` share.
struct FetchOptions: Equatable {
    /// The default for `-j`: as many transfers at once as ASI's queues ran.
    static let defaultMaxConcurrentRequests = 4

    /// `-o DIR`, as typed (nil: the command's default directory).
    var outputDirectory: String?
    /// `-j N`: at most this many requests in flight.
    var maxConcurrentRequests = FetchOptions.defaultMaxConcurrentRequests
    /// False after `--no-progress`: no progress bar on standard error.
    var showsProgress = true
}
