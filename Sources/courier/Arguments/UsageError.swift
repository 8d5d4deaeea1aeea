/// A command line `courier` cannot run: the caller prints `message` and the usage, and exits 2.
struct UsageError: Error, Equatable {
    /// What was wrong, or nil when the usage alone says it (no arguments at all).
    let message: String?
}
