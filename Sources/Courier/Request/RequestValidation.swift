import Foundation

/// Checks made before a request is sent: what fails here never reaches the network.
enum RequestValidation {
    static func validate(url: URL) throws(HTTPRequestError) {
        guard let scheme = url.scheme, scheme.equalsIgnoringASCIICase("http") || scheme.equalsIgnoringASCIICase("https")
        else {
            let shown = url.scheme.map { "'\($0)'" } ?? "none"
            throw HTTPRequestError(
                type: .unableToCreateRequest,
                message: "Only http and https URLs can be requested (scheme: \(shown))", url: url)
        }
        guard let host = url.host, !host.isEmpty else {
            throw HTTPRequestError(type: .unableToCreateRequest, message: "The URL has no host", url: url)
        }
    }

    static func validate(method: String, url: URL) throws(HTTPRequestError) {
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenCharacter) else {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The request method \(method.debugDescription) is not a valid HTTP token", url: url)
        }
    }

    static func validate(headers: HTTPHeaders, url: URL) throws(HTTPRequestError) {
        for (name, value) in headers {
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
                throw HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest,
                    message: "The header name \(name.debugDescription) is not a valid HTTP token", url: url)
            }
            if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) {
                throw HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest,
                    message: "The value of header '\(name)' contains a CR, LF or NUL character", url: url)
            }
        }
    }

    /// RFC 9110 `tchar`: the characters allowed in a method or header name.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
