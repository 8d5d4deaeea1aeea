/// The header fields an attempt sends beyond the user's own `requestHeaders`, which ASI's
/// `buildRequestHeaders` put into `requestHeaders`: those Courier adds as header lines
/// (User-Agent, Accept-Encoding, a built form's Content-Type, Content-Encoding, Transfer-Encoding,
/// Range) and the Content-Length libcurl makes from `CURLOPT_POSTFIELDSIZE_LARGE`.
///
/// Kept apart from the user's headers, in the request's state rather than its configuration:
/// `copy()` and the redirect rules work on the user's headers only, and each attempt records its
/// own. Recorded from what the attempt already built — a slice of its header list, for the
/// common GET the one shared list — so recording allocates nothing; the lines become fields only
/// when `requestHeaders` is read.
///
/// Not here: what libcurl adds by itself (Host, `Accept: */*`, `Expect: 100-continue`), and the
/// cookies its cookie engine sends from the shared jar, which are chosen as the request goes out.
struct GeneratedHeaders {
    /// Lines as libcurl takes them: "Name: value"; "Name:" suppresses a header and is no field.
    var lines: ArraySlice<String> = []
    /// The Content-Length libcurl sends (nil: none, or a chunked body). With a body it replaces
    /// any Content-Length of the user's, which is not sent.
    var contentLength: Int64?

    var isEmpty: Bool { lines.isEmpty && contentLength == nil }

    /// Each line as a field, then libcurl's Content-Length.
    private var fields: [HTTPHeaders.Field] {
        var fields: [HTTPHeaders.Field] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            if value.isEmpty { continue }
            fields.append(HTTPHeaders.Field(name: String(line[..<colon]), value: String(value)))
        }
        if let contentLength { fields.append(HTTPHeaders.Field(name: "Content-Length", value: String(contentLength))) }
        return fields
    }

    /// The headers the attempt sent: the user's, in their order, then the generated ones. A line
    /// is added only for a name the user did not give (Courier sends the user's then), except
    /// Content-Length, libcurl's whenever it sends one.
    func shown(with user: HTTPHeaders) -> HTTPHeaders {
        guard !isEmpty else { return user }
        var headers = user
        for field in fields {
            if field.name == "Content-Length" {
                headers[field.name] = field.value
            } else if !user.contains(field.name) {
                headers.add(name: field.name, value: field.value)
            }
        }
        return headers
    }

    /// What a list written back to `requestHeaders` leaves as the user's own: `headers` without
    /// the generated fields that `shown(with:)` added to `user`. A field the user did not have
    /// before, with the name and value of a generated one, is taken to be that one.
    func removingShown(from headers: HTTPHeaders, user: HTTPHeaders) -> HTTPHeaders {
        guard !isEmpty else { return headers }
        let generated = fields
        var kept = HTTPHeaders()
        for (name, value) in headers {
            let isGenerated =
                !user.contains(name)
                && generated.contains { $0.name.equalsIgnoringASCIICase(name) && $0.value == value }
            if !isGenerated { kept.add(name: name, value: value) }
        }
        return kept
    }
}
