import Foundation

/// A form's fields and parts, and how to encode them.
struct FormState {
    struct Field {
        var key: String
        var value: String
    }

    struct Part {
        enum Source {
            case file(String)
            case data(Data)
        }

        var key: String
        var source: Source
        var fileName: String
        var contentType: String
    }

    var fields: [Field] = []
    var parts: [Part] = []
    var chosenFormat: PostFormat = .urlEncoded
    var stringEncoding: String.Encoding = .utf8

    /// What building the body changed in the request's configuration, kept so that a copy can
    /// start again from what the user set (nil until the body is built).
    var replacedByBuild: ReplacedByBuild?

    var effectiveFormat: PostFormat { parts.isEmpty ? chosenFormat : .multipart }

    /// The configuration's body settings as they were before the form's body replaced them.
    struct ReplacedByBuild {
        var postBody: Data?
        var shouldStreamPostDataFromDisk: Bool
        var diskBody: [DiskBodyPiece]

        /// Puts the settings back, in a copy of the request that built its body.
        func restore(in config: inout RequestConfiguration) {
            config.postBody = postBody
            config.shouldStreamPostDataFromDisk = shouldStreamPostDataFromDisk
            config.diskBody = diskBody
            config.builtBodyContentType = nil
        }
    }

    enum Body {
        case memory(Data)
        case pieces([DiskBodyPiece])
    }

    /// `key=value&…`, ASI's escaping, with the charset named.
    func urlEncodedBody() -> (body: Body, contentType: String) {
        let text = fields.map {
            FormEncoding.urlEncode($0.key, encoding: stringEncoding) + "="
                + FormEncoding.urlEncode($0.value, encoding: stringEncoding)
        }.joined(separator: "&")
        return (
            .memory(Data(text.utf8)),
            "application/x-www-form-urlencoded; charset=\(stringEncoding.ianaCharsetName)"
        )
    }

    /// Multipart framing around fields and parts; files stay files, read only while sent.
    func multipartBody() -> (body: Body, contentType: String) {
        func encoded(_ text: String) -> Data {
            text.data(using: stringEncoding, allowLossyConversion: true) ?? Data(text.utf8)
        }
        let inMemory =
            fields.map { encoded($0.value) }
            + parts.compactMap { part -> Data? in
                if case .data(let data) = part.source { return data }
                return nil
            }
        let boundary = FormEncoding.boundary(avoiding: inMemory)
        var pieces: [DiskBodyPiece] = []
        var text = Data("--\(boundary)\r\n".utf8)
        var first = true
        func separate() {
            if !first { text.append(Data("\r\n--\(boundary)\r\n".utf8)) }
            first = false
        }
        for field in fields {
            separate()
            text.append(encoded("Content-Disposition: form-data; name=\(FormEncoding.quoted(field.key))\r\n\r\n"))
            text.append(encoded(field.value))
        }
        for part in parts {
            separate()
            text.append(
                encoded(
                    "Content-Disposition: form-data; name=\(FormEncoding.quoted(part.key)); "
                        + "filename=\(FormEncoding.quoted(part.fileName))\r\nContent-Type: \(part.contentType)\r\n\r\n")
            )
            switch part.source {
            case .data(let data):
                text.append(data)
            case .file(let path):
                pieces.append(.data(text))
                text = Data()
                pieces.append(.file(path))
            }
        }
        text.append(Data("\r\n--\(boundary)--\r\n".utf8))
        pieces.append(.data(text))
        return (
            .pieces(pieces),
            "multipart/form-data; charset=\(stringEncoding.ianaCharsetName); boundary=\(boundary)"
        )
    }
}
