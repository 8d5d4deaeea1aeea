import Foundation

/// One request of a batch: a URL, and for a POST its body.
struct FetchJob: Sendable, Equatable {
    /// What the request sends.
    enum Body: Sendable, Equatable {
        /// Nothing: a GET.
        case none
        /// These bytes, POSTed.
        case data(Data)
        /// A form, POSTed (`FormDataRequest`).
        case form([PostOptions.FormPart])
    }

    /// What to fetch.
    let url: URL
    var body: Body = .none

    /// The verb the request is sent with.
    var method: String { body == .none ? "GET" : "POST" }
}
