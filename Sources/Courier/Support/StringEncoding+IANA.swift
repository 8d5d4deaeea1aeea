import Foundation

extension String.Encoding {
    /// The encoding an IANA charset name stands for ("UTF-8", "iso-8859-1", "Shift_JIS"), or nil
    /// when Foundation has no such encoding. Names compare without regard to case.
    init?(ianaCharsetName name: String) {
        let key = name.trimmingCharacters(in: CharacterSet(charactersIn: "\"' ")).lowercased()
        guard let encoding = Self.ianaNames[key] else { return nil }
        self = encoding
    }

    /// The IANA name Courier writes in a Content-Type charset parameter.
    var ianaCharsetName: String {
        switch self {
        case .utf8: "utf-8"
        case .ascii: "us-ascii"
        case .isoLatin1: "iso-8859-1"
        case .isoLatin2: "iso-8859-2"
        case .windowsCP1250: "windows-1250"
        case .windowsCP1251: "windows-1251"
        case .windowsCP1252: "windows-1252"
        case .windowsCP1253: "windows-1253"
        case .windowsCP1254: "windows-1254"
        case .shiftJIS: "shift_jis"
        case .japaneseEUC: "euc-jp"
        case .iso2022JP: "iso-2022-jp"
        case .utf16: "utf-16"
        case .utf16BigEndian: "utf-16be"
        case .utf16LittleEndian: "utf-16le"
        case .utf32: "utf-32"
        case .utf32BigEndian: "utf-32be"
        case .utf32LittleEndian: "utf-32le"
        case .macOSRoman: "macintosh"
        default: "utf-8"
        }
    }

    private static let ianaNames: [String: String.Encoding] = [
        "utf-8": .utf8, "utf8": .utf8,
        "us-ascii": .ascii, "ascii": .ascii, "iso646-us": .ascii,
        "iso-8859-1": .isoLatin1, "iso8859-1": .isoLatin1, "latin1": .isoLatin1, "l1": .isoLatin1,
        "iso_8859-1": .isoLatin1,
        "iso-8859-2": .isoLatin2, "latin2": .isoLatin2,
        "windows-1250": .windowsCP1250, "cp1250": .windowsCP1250,
        "windows-1251": .windowsCP1251, "cp1251": .windowsCP1251,
        "windows-1252": .windowsCP1252, "cp1252": .windowsCP1252,
        "windows-1253": .windowsCP1253, "cp1253": .windowsCP1253,
        "windows-1254": .windowsCP1254, "cp1254": .windowsCP1254,
        "shift_jis": .shiftJIS, "shift-jis": .shiftJIS, "sjis": .shiftJIS, "x-sjis": .shiftJIS,
        "ms_kanji": .shiftJIS, "windows-31j": .shiftJIS, "cp932": .shiftJIS,
        "euc-jp": .japaneseEUC,
        "iso-2022-jp": .iso2022JP,
        "utf-16": .utf16, "utf16": .utf16,
        "utf-16be": .utf16BigEndian, "utf-16le": .utf16LittleEndian,
        "utf-32": .utf32, "utf-32be": .utf32BigEndian, "utf-32le": .utf32LittleEndian,
        "macintosh": .macOSRoman, "mac": .macOSRoman, "x-mac-roman": .macOSRoman,
    ]
}

/// Reads the parts of a Content-Type header: "text/html; charset=utf-8" → ("text/html", "utf-8").
enum ContentType {
    /// The charset parameter, wherever it stands among the parameters, or nil.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2,
                pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset"
            else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"' \t"))
        }
        return nil
    }

    /// The media type without parameters, lower-cased.
    static func mimeType(in contentType: String) -> String {
        let base = contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
        return base.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
