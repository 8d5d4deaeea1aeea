import Foundation

/// One request of a batch: a URL, and for a POST its body.
struct FetchJob: Sendable, Equatable {
    /// What to fetch.
    let url: URL
    /// The body to POST, or nil for a GET.
    var body: Data?

    /// The verb the request is sent with.
    var method: String { body == nil ? "GET" : "POST" }
}
