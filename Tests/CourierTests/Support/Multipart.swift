import Foundation

/// A strict reader of multipart/form-data bodies, for checking what Courier sent.
struct Multipart {
    struct Part: Equatable {
        var headers: [String]
        var body: Data

        /// The `name` (or `filename`) parameter of Content-Disposition, as sent (quotes removed).
        func parameter(_ name: String) -> String? {
            guard let disposition = headers.first(where: { $0.lowercased().hasPrefix("content-disposition:") }) else {
                return nil
            }
            guard let range = disposition.range(of: "; \(name)=\"") else { return nil }
            let rest = disposition[range.upperBound...]
            return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
        }

        var contentType: String? {
            headers.first { $0.lowercased().hasPrefix("content-type:") }.map {
                String($0.dropFirst("content-type:".count)).trimmingCharacters(in: .whitespaces)
            }
        }

        var text: String { String(decoding: body, as: UTF8.self) }
    }

    let parts: [Part]

    /// Parses `body` framed by `boundary`; nil when the framing is not exactly right.
    init?(body: Data, boundary: String) {
        let delimiter = Data("--\(boundary)".utf8)
        guard body.starts(with: delimiter + Data("\r\n".utf8)) else { return nil }
        guard body.suffix(delimiter.count + 4) == delimiter + Data("--\r\n".utf8) else { return nil }
        var parts: [Part] = []
        var cursor = body.startIndex + delimiter.count + 2
        let separator = Data("\r\n".utf8) + delimiter
        while true {
            guard let next = body.range(of: separator, in: cursor..<body.endIndex) else { return nil }
            let chunk = body[cursor..<next.lowerBound]
            guard let split = chunk.range(of: Data("\r\n\r\n".utf8)) else { return nil }
            let headerText = String(decoding: chunk[chunk.startIndex..<split.lowerBound], as: UTF8.self)
            parts.append(
                Part(headers: headerText.components(separatedBy: "\r\n"), body: Data(chunk[split.upperBound...])))
            let after = next.upperBound
            if body[after...].starts(with: Data("--\r\n".utf8)) { break }
            guard body[after...].starts(with: Data("\r\n".utf8)) else { return nil }
            cursor = after + 2
        }
        self.parts = parts
    }

    /// The boundary parameter of a multipart Content-Type.
    static func boundary(in contentType: String) -> String? {
        contentType.components(separatedBy: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix("boundary=") }.map { String($0.dropFirst("boundary=".count)) }
    }
}
