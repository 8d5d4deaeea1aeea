import Foundation

/// Checks made before a request is sent: what fails here never reaches the network.
enum RequestValidation {
    /// Returns true when the URL is plainly an http or https URL with no user information, which
    /// spares `validate(settings:url:urlHasNoUserInformation:)` from parsing it again.
    @discardableResult
    static func validate(url: URL) throws(HTTPRequestError) -> Bool {
        // Most URLs are plainly fine: say so from their text, which costs less than asking
        // URL for its scheme and host (each makes a String).
        if hasSchemeAndHost(url.absoluteString) { return true }
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
        return false
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
            var name = name
            guard !name.isEmpty, name.withUTF8({ $0.allSatisfy(isTokenCharacter) }) else {
                throw HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest,
                    message: "The header name \(name.debugDescription) is not a valid HTTP token", url: url)
            }
            if hasLineBreakOrNUL(value) {
                throw HTTPRequestError(
                    type: .internalErrorWhileBuildingRequest,
                    message: "The value of header '\(name)' contains a CR, LF or NUL character", url: url)
            }
        }
    }

    /// The User-Agent Courier adds when the user gave no User-Agent header: the request's, or
    /// else the class-wide default (CWE-113: a CR or LF there would start a header of its own).
    static func validate(userAgent: String?, url: URL) throws(HTTPRequestError) {
        guard let userAgent, hasLineBreakOrNUL(userAgent) else { return }
        throw HTTPRequestError(
            type: .internalErrorWhileBuildingRequest,
            message: "The user agent string contains a CR, LF or NUL character", url: url)
    }

    /// The user names and passwords an attempt hands to libcurl, the server's and the proxy's,
    /// whatever their source (the request, its URL, a store, a delegate). RFC 7617 forbids
    /// control characters in both, and they matter: Basic base64-encodes them, but libcurl 7.88
    /// quotes a Digest user name as it is (escaping only `"` and `\`), so a CR/LF would split
    /// the request (CWE-93), and a NUL would cut the C string libcurl copies.
    static func validate(authentication: TransferAuthentication?, url: URL) throws(HTTPRequestError) {
        guard let authentication else { return }
        // Field by field, not through an array of them: this runs for every attempt.
        if let server = authentication.server, hasLineBreakOrNUL(server.user) || hasLineBreakOrNUL(server.password) {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The user name or password contains a CR, LF or NUL character", url: url)
        }
        if let proxy = authentication.proxyCredentials,
            hasLineBreakOrNUL(proxy.user) || hasLineBreakOrNUL(proxy.password)
        {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The proxy user name or password contains a CR, LF or NUL character", url: url)
        }
    }

    /// The request's own user names, passwords and domains and those in its URL, checked when
    /// the request starts so that a bad one is refused before the first attempt, not only when a
    /// challenge would have it sent (see `validate(authentication:url:)`). A URL that
    /// `validate(url:)` found to have no user information is not parsed again.
    static func validate(
        settings: AuthenticationSettings, url: URL, urlHasNoUserInformation: Bool
    ) throws(HTTPRequestError) {
        if isUnsafe(settings.username) || isUnsafe(settings.password) || isUnsafe(settings.domain) {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The user name, password or domain contains a CR, LF or NUL character", url: url)
        }
        if isUnsafe(settings.proxyUsername) || isUnsafe(settings.proxyPassword) || isUnsafe(settings.proxyDomain) {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The proxy user name, password or domain contains a CR, LF or NUL character", url: url)
        }
        if urlHasNoUserInformation { return }
        if isUnsafe(url.user(percentEncoded: false)) || isUnsafe(url.password(percentEncoded: false)) {
            throw HTTPRequestError(
                type: .internalErrorWhileBuildingRequest,
                message: "The user name or password in the URL contains a CR, LF or NUL character", url: url)
        }
    }

    private static func isUnsafe(_ text: String?) -> Bool {
        guard let text else { return false }
        return hasLineBreakOrNUL(text)
    }

    /// Whether `text` holds a byte that would end or cut a header line: CR, LF or NUL.
    static func hasLineBreakOrNUL(_ text: String) -> Bool {
        // Over the contiguous bytes: the UTF-8 view's iterator cost ~40 instructions a byte, and
        // a signed S3 request's headers are ~300 bytes (callgrind, `courier-bench get --s3`).
        var text = text
        return text.withUTF8 { bytes in bytes.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }
    }

    /// True when the text starts with "http://" or "https://" (any case) and a host name or
    /// address that starts with a letter or digit, with no user information before it. False
    /// does not mean invalid: the caller then asks URL itself.
    static func hasSchemeAndHost(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let https: StaticString = "https://"
            let http: StaticString = "http://"
            var index: Int
            if ASCIICase.hasPrefix(bytes, https) {
                index = https.utf8CodeUnitCount
            } else if ASCIICase.hasPrefix(bytes, http) {
                index = http.utf8CodeUnitCount
            } else {
                return false
            }
            guard index < bytes.count else { return false }
            let first = ASCIICase.folded(bytes[index])
            guard
                (first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z"))
                    || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
            else { return false }
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"): return true
                case UInt8(ascii: "@"): return false
                default: index += 1
                }
            }
            return true
        }
    }

    /// RFC 9110 `tchar`: the characters allowed in a method or header name.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
