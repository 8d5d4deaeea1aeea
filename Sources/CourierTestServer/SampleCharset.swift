/// The charsets ``Route/charset(_:)`` knows how to encode its sample text in.
enum SampleCharset {
    case utf8, utf16, utf16BigEndian, utf16LittleEndian, latin1, shiftJIS, ascii
    /// `/charset/none`: no charset parameter at all.
    case none
    /// A name we do not know: labelled as asked, body sent as UTF-8.
    case unknown

    /// Classifies a charset name, case-insensitively and ignoring `-` and `_`, since
    /// `Shift_JIS`, `shift-jis` and `SHIFT_JIS` all appear in the wild.
    init(_ name: String?) {
        guard let name else {
            self = .none
            return
        }
        let key = String(name.lowercased().filter { $0 != "-" && $0 != "_" })
        switch key {
        case "utf8": self = .utf8
        case "utf16": self = .utf16
        case "utf16be": self = .utf16BigEndian
        case "utf16le": self = .utf16LittleEndian
        case "iso88591", "latin1", "l1": self = .latin1
        case "shiftjis", "sjis": self = .shiftJIS
        case "usascii", "ascii": self = .ascii
        case "none": self = .none
        default: self = .unknown
        }
    }
}
