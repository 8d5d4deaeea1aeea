/// Masks credentials in what Courier shows: URLs in logs, error descriptions and the CLI's
/// lines, and Authorization values in logged headers. `package`: the `courier` CLI uses it too,
/// and it is no API of the library's.
package enum CredentialMask {
    /// What stands in for a password or a credential.
    package static let mask = "***"

    /// `url` with the password of its user information masked: "http://user:secret@host/" →
    /// "http://user:***@host/". A user name with no password is masked whole ("***@host"): it
    /// is then often a token itself (curl sends it as Basic with an empty password). A URL
    /// without user information comes back as it is.
    /// A presigned URL's signature and session token are masked too ("X-Amz-Signature=***"):
    /// whoever has them can make the request the URL was signed for, until it expires.
    package static func url(_ url: String) -> String {
        maskingSignedQuery(maskingUserInformation(url))
    }

    private static func maskingUserInformation(_ url: String) -> String {
        guard let separator = url.range(of: "://") else { return url }
        let authorityStart = separator.upperBound
        let authorityEnd = url[authorityStart...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? url.endIndex
        // The last "@" of the authority: an unencoded "@" in a password comes before it.
        guard let at = url[authorityStart..<authorityEnd].lastIndex(of: "@") else { return url }
        let userInformation = url[authorityStart..<at]
        let masked = userInformation.firstIndex(of: ":").map { userInformation[..<$0] + ":" + mask } ?? mask
        return url[..<authorityStart] + masked + url[at...]
    }

    /// The query parameters of a presigned URL that grant access: SigV4's and SigV2's signature
    /// and the session token (any case, as S3 reads them).
    private static let signedQueryNames: Set<String> = ["x-amz-signature", "x-amz-security-token", "signature"]

    private static func maskingSignedQuery(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        let queryEnd = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<queryEnd]
        var changed = false
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { parameter -> Substring in
            guard let equals = parameter.firstIndex(of: "="),
                signedQueryNames.contains(parameter[..<equals].lowercased()),
                parameter.index(after: equals) != parameter.endIndex
            else { return parameter }
            changed = true
            return parameter[...equals] + mask
        }
        guard changed else { return url }
        return url[...question] + parameters.joined(separator: "&") + url[queryEnd...]
    }

    /// An Authorization or Proxy-Authorization value as it may be shown: its scheme when it is a
    /// known one ("Basic ********"), never the credentials ("Digest username=…" included, since
    /// the user name is one).
    package static func authorizationValue(_ value: String) -> String {
        let trimmed = value.drop { $0 == " " || $0 == "\t" }
        if let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }),
            knownSchemes.contains(trimmed[..<space].lowercased())
        {
            return trimmed[..<space] + " ********"
        }
        return "********"
    }

    /// Scheme names shown in clear: anything else might be a bare token.
    private static let knownSchemes: Set<String> = [
        "basic", "digest", "ntlm", "negotiate", "bearer", "aws4-hmac-sha256", "hoba", "mutual", "token",
    ]
}
