/// Reason phrases for the status line of a response Courier makes up itself (one served from a
/// download cache), where no server wrote one.
enum HTTPStatusText {
    static func reason(for code: Int) -> String {
        switch code {
        case 200: "OK"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 404: "Not Found"
        default: "Status \(code)"
        }
    }
}
