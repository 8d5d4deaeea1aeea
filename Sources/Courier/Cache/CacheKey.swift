import Foundation

/// The file names of one URL's entry in a store folder.
///
/// The key is ASI's: the absolute URL with one trailing "/" removed (so `http://host/a/` and
/// `http://host/a` share an entry). Its SHA-256 in hex names both files, so nothing a server
/// sends (`../`, `/`, NUL, a long name) reaches a path: every name is 64 hex digits, a dot and
/// a short ASCII extension.
struct CacheKey: Sendable, Hashable {
    /// The string the entry is keyed by.
    let urlString: String
    /// `urlString` with a password masked (`CredentialMask.url`): what the metadata records, to
    /// check a hit, so that no password is written to the cache folder in clear.
    let recordedURL: String
    /// 64 lowercase hex digits.
    let hash: String
    /// The body file's extension: the URL's, when it is a short run of ASCII letters and digits
    /// and not a server script's (ASI's `fileExtensionsToHandleAsHTML`), else "html".
    let bodyExtension: String

    init(_ url: URL) {
        var string = url.absoluteString
        if string.hasSuffix("/") { string.removeLast() }
        urlString = string
        recordedURL = CredentialMask.url(string)
        hash = SHA256.hexDigest(string.utf8)
        bodyExtension = Self.bodyExtension(for: url)
    }

    /// The body file's name. ASI gave it the URL's extension so that a viewer opening the
    /// cached file (ASI pointed `downloadDestinationPath` at it) knows its type.
    var bodyName: String { hash + "." + bodyExtension }

    /// The metadata file's name. Its extension has 13 letters, more than a body's may have, so
    /// a body named after a URL's extension never takes it.
    var metadataName: String { hash + "." + Self.metadataExtension }

    static let metadataExtension = "cachedheaders"

    /// ASI's list of extensions whose responses are pages made by a script.
    static let extensionsHandledAsHTML: Set<String> = ["asp", "aspx", "jsp", "php", "rb", "py", "pl", "cgi"]

    private static func bodyExtension(for url: URL) -> String {
        let candidate = url.pathExtension
        guard (1...8).contains(candidate.utf8.count),
            candidate.utf8.allSatisfy(isASCIILetterOrDigit),
            !extensionsHandledAsHTML.contains(candidate.lowercased())
        else { return "html" }
        return candidate
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }
}
