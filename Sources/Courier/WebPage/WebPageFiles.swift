import Foundation

/// Where a page saved with local URLs keeps its resources, and how the saved files refer to each
/// other.
enum WebPageFiles {
    /// The folder beside a saved page: `DIR/index.html` keeps its resources in
    /// `DIR/index_files` (as browsers' "save page, complete" does).
    static func resourceFolder(besidePage path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingPathExtension().path + "_files"
    }

    /// A resource's file name: the URL's last path component made safe (letters, digits, `.`,
    /// `-` and `_`; at most 40 characters), then 8 hex digits of the URL's SHA-256 so that two
    /// resources never share a file, then an extension: the URL's when it is a short run of
    /// letters and digits and not a server script's (ASI's rule, `CacheKey`), else one for how
    /// the resource was linked (a frame's page `.html`, a stylesheet `.css`, a script `.js`).
    static func fileName(for url: URL, kind: WebPageReference.Kind) -> String {
        let key = WebPagePlan.key(url)
        let hash = String(SHA256.hexDigest(key.utf8).prefix(8))
        let last = url.lastPathComponent == "/" ? "" : url.lastPathComponent
        let originalExtension = (last as NSString).pathExtension
        let stem = String(
            (last as NSString).deletingPathExtension.unicodeScalars.map { scalar -> Character in
                isSafe(scalar) ? Character(scalar) : "_"
            }.prefix(40))
        let pathExtension: String
        if (1...8).contains(originalExtension.utf8.count), originalExtension.unicodeScalars.allSatisfy(isLetterOrDigit),
            !CacheKey.extensionsHandledAsHTML.contains(originalExtension.lowercased())
        {
            pathExtension = originalExtension
        } else {
            switch kind {
            case .frame: pathExtension = "html"
            case .stylesheet: pathExtension = "css"
            case .script: pathExtension = "js"
            case .image, .media: pathExtension = originalExtension.isEmpty ? "" : "bin"
            }
        }
        let name = (stem.isEmpty ? "resource" : stem) + "-" + hash
        return pathExtension.isEmpty ? name : name + "." + pathExtension
    }

    /// How a file at `from` (a page or a stylesheet) refers to `target`: a relative URL when
    /// `from` is known, percent-encoded as a URL must be; else `target`'s file:// URL.
    static func reference(to target: String, from: String?) -> String {
        guard let from else { return URL(fileURLWithPath: target).absoluteString }
        let folder = URL(fileURLWithPath: from).deletingLastPathComponent().standardizedFileURL.pathComponents
        let path = URL(fileURLWithPath: target).standardizedFileURL.pathComponents
        var common = 0
        while common < folder.count, common < path.count - 1, folder[common] == path[common] { common += 1 }
        let components = Array(repeating: "..", count: folder.count - common) + path[common...]
        return components.map { $0.addingPercentEncoding(withAllowedCharacters: pathCharacters) ?? $0 }
            .joined(separator: "/")
    }

    private static let pathCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&+,;=:@")

    private static func isSafe(_ scalar: Unicode.Scalar) -> Bool {
        isLetterOrDigit(scalar) || scalar == "-" || scalar == "_" || scalar == "."
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
    }
}
