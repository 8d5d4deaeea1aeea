/// The Digest nonces a server has issued, kept in ``ServerState`` so that a challenge on
/// one connection can be answered on another, as clients may.
struct DigestNonceBook {
    /// What the server knows about one issued nonce.
    struct Entry {
        /// The route path (its identity) the nonce was issued for.
        let routePath: String
        /// The highest nonce count accepted with it so far (0 before the first answer).
        var lastCount = 0
        /// False once the stale-nonce mode declared the nonce stale.
        var valid = true
    }

    /// Issued nonces by value.
    var entries: [String: Entry] = [:]
    /// Paths of stale-mode routes that have already answered one correct response with `stale=true`.
    var staleServed: Set<String> = []
}
