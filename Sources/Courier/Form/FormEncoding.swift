import Foundation

/// The byte-level rules of form bodies.
enum FormEncoding {
    /// ASI's URL encoding for form fields: everything but letters, digits, `-`, `.` and `_` is
    /// percent-encoded (a space is %20, not +), after converting to `encoding`.
    static func urlEncode(_ text: String, encoding: String.Encoding) -> String {
        let bytes = text.data(using: encoding, allowLossyConversion: true) ?? Data(text.utf8)
        var result = ""
        result.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += String(format: "%%%02X", byte)
            }
        }
        return result
    }

    /// A name or file name for a multipart `Content-Disposition` quoted-string, escaped as
    /// browsers do (WHATWG): `"` → %22, CR → %0D, LF → %0A, so no value can break the framing.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// Why a part's Content-Type cannot be written into its part header (nil: every one can).
    /// Unlike a name it is not a quoted-string that could be escaped: a CR, LF or NUL would end
    /// the line and start a part header of someone else's (CWE-93), so the form is refused.
    static func refusal(ofContentTypes types: some Sequence<String>) -> String? {
        guard let bad = types.first(where: RequestValidation.hasLineBreakOrNUL) else { return nil }
        return "The form part Content-Type \(bad.debugDescription) contains a CR, LF or NUL character"
    }

    /// A boundary no in-memory part contains (files are not scanned: 128 random bits make a
    /// collision with their contents practically impossible).
    static func boundary(avoiding parts: [Data]) -> String {
        while true {
            let candidate = "0xKhTmLbOuNdArY-" + UUID().uuidString
            let bytes = Data(candidate.utf8)
            if !parts.contains(where: { $0.range(of: bytes) != nil }) { return candidate }
        }
    }
}
