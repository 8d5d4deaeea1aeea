import Foundation

/// A user name, password and NTLM domain, as the credential stores keep them.
struct StoredCredential: Sendable, Hashable {
    var user: String
    var password: String
    /// The NTLM domain; nil for Basic and Digest, or when NTLM is to use none.
    var domain: String?

    init(user: String, password: String, domain: String? = nil) {
        self.user = user
        self.password = password
        self.domain = domain
    }

    /// Takes a `URLCredential`'s user and password; nil when it has no user. ASI's keychain kept no
    /// NTLM domain either: write it into the user name ("DOMAIN\user") where NTLM needs one.
    init?(_ credential: URLCredential) {
        guard let user = credential.user else { return nil }
        self.init(user: user, password: credential.password ?? "")
    }

    /// The same user and password as a `URLCredential` that lives for this process only.
    var urlCredential: URLCredential {
        let user = domain.map { $0 + "\\" + self.user } ?? self.user
        return URLCredential(user: user, password: password, persistence: .forSession)
    }
}
