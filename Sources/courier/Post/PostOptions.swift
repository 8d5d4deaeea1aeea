/// What `courier post` was asked to send.
struct PostOptions: Equatable {
    /// One `-F` part.
    enum FormPart: Equatable {
        /// `-F key=value`.
        case value(key: String, value: String)
        /// `-F key=@path;type=...;filename=...`: a file, streamed from disk.
        case file(key: String, path: String, contentType: String?, fileName: String?)
    }

    /// One `--data` or `--data-binary` argument.
    enum DataPart: Equatable {
        /// `--data TEXT` or `--data-binary TEXT`.
        case text(String)
        /// `--data @FILE`: the file with its line breaks removed, as curl sends it.
        case fileWithoutLineBreaks(String)
        /// `--data-binary @FILE`: the file byte for byte, streamed from disk.
        case file(String)
    }

    var request = RequestOptions()
    /// `-F` parts, in order: the body is a form (multipart when a file is among them).
    var formParts: [FormPart] = []
    /// `--data`/`--data-binary`, in order, joined with "&" as curl does.
    var dataParts: [DataPart] = []
    /// `-X METHOD` (nil: POST).
    var method: String?
    /// `-o FILE`: the response body goes there instead of standard output.
    var outputFile: String?

    static let specs: [OptionSpec] = [
        OptionSpec(
            "F", "form", value: "KEY=VALUE",
            "add a form field; KEY=@PATH[;type=TYPE][;filename=NAME]\nadds a file (multipart/form-data); repeatable"),
        OptionSpec(
            "d", "data", value: "DATA",
            "send DATA as the body (urlencoded); @FILE sends a file\n"
                + "with its line breaks removed; repeats are joined with &"
        ),
        OptionSpec(nil, "data-binary", value: "DATA", "send DATA, or @FILE byte for byte, as the body"),
        OptionSpec("X", "request", value: "METHOD", "send with METHOD instead of POST (PUT, PATCH, ...)"),
        OptionSpec("o", "output", value: "FILE", "write the response body to FILE, not standard output"),
    ]

    static let allSpecs = specs + RequestOptions.specs + [.help]

    mutating func take(_ spec: OptionSpec, _ value: String?, parsing: ValueParsing) throws(UsageError) -> Bool {
        if try request.take(spec, value, parsing: parsing) { return true }
        switch (spec.long, value) {
        case ("form", let value?): formParts.append(try Self.formPart(value, command: parsing.command))
        case ("data", let value?):
            dataParts.append(value.hasPrefix("@") ? .fileWithoutLineBreaks(String(value.dropFirst())) : .text(value))
        case ("data-binary", let value?):
            dataParts.append(value.hasPrefix("@") ? .file(String(value.dropFirst())) : .text(value))
        case ("request", let value?):
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }) else {
                throw UsageError("-X needs a method name like PUT (got \"\(value)\")", command: parsing.command)
            }
            method = value.uppercased()
        case ("output", let value?): outputFile = value
        default: return false
        }
        return true
    }

    /// What cannot be sent together.
    func check(command: String) throws(UsageError) {
        if !formParts.isEmpty, !dataParts.isEmpty {
            throw UsageError("give -F fields or --data, not both", command: command)
        }
        if dataParts.count > 1, dataParts.contains(where: { if case .file = $0 { true } else { false } }) {
            throw UsageError("--data-binary @FILE is the whole body: give it alone", command: command)
        }
    }

    /// "key=value" or "key=@path;type=text/plain;filename=a.txt".
    static func formPart(_ text: String, command: String) throws(UsageError) -> FormPart {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("-F needs KEY=VALUE or KEY=@FILE (got \"\(text)\")", command: command)
        }
        let key = String(text[..<equals])
        let value = String(text[text.index(after: equals)...])
        guard !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" }) else {
            throw UsageError("-F: the field name \"\(key)\" holds a control character or a quote", command: command)
        }
        guard value.hasPrefix("@") else { return .value(key: key, value: value) }
        var pieces = value.dropFirst().split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        let path = pieces.removeFirst()
        guard !path.isEmpty else { throw UsageError("-F \(key)=@ needs a file path", command: command) }
        var contentType: String?
        var fileName: String?
        for piece in pieces {
            if piece.hasPrefix("type=") {
                contentType = String(piece.dropFirst(5))
            } else if piece.hasPrefix("filename=") {
                fileName = String(piece.dropFirst(9))
            } else {
                throw UsageError("-F \(key): unknown \"\(piece)\" (type= or filename=)", command: command)
            }
        }
        for text in [contentType, fileName].compactMap({ $0 })
        where text.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" }) {
            throw UsageError("-F \(key): \"\(text)\" holds a control character or a quote", command: command)
        }
        return .file(key: key, path: path, contentType: contentType, fileName: fileName)
    }
}
