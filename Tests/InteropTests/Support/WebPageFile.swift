import Foundation

/// A file of a ``WebPageSiteFolder``: which origin serves it, and its path inside the folder
/// ("index.html", "frame/frame.css"). What fixtures list and the access log is read as.
struct WebPageFile: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Which of the site's two servers.
    enum Origin: Hashable, Sendable, Comparable {
        /// The page's own origin, `http://127.0.0.1:PORT`.
        case page
        /// The other origin, `http://localhost:PORT`.
        case other
    }

    var origin: Origin
    /// The path inside the folder, without a leading "/"; as requested (query included) when
    /// read from the log.
    var path: String

    /// `path` on the page origin.
    static func page(_ path: String) -> WebPageFile { WebPageFile(origin: .page, path: path) }
    /// `path` on the other origin.
    static func other(_ path: String) -> WebPageFile { WebPageFile(origin: .other, path: path) }

    /// "index.html" on the page origin, "other:x.png" on the other one: short failure messages.
    var description: String { origin == .page ? path : "other:\(path)" }

    static func < (left: WebPageFile, right: WebPageFile) -> Bool {
        (left.origin, left.path) < (right.origin, right.path)
    }
}
