import Foundation

/// The process-wide store of credentials that worked (ASI's session store, `useSessionPersistence`),
/// for servers and, kept apart, for proxies.
///
/// Reuse follows ASI (asi-api.md F.3): a request is offered the best entry for its own scheme,
/// host and port — the one saved for exactly its URL first, else the newest for that server —
/// never one of another host or port; a known realm or method must match; credentials a server
/// rejected are removed; `clear()` forgets everything (`HTTPRequest.clearSession()`).
///
/// Any thread: every entry sits behind one leaf lock, taken for a lookup or a change and never
/// while calling out.
final class SessionCredentialStore: Sendable {
    /// The store every request shares.
    static let shared = SessionCredentialStore()

    struct Entry: Sendable, Equatable {
        var space: ProtectionSpace
        /// The URL the credentials worked for, without its fragment: an exact match wins.
        var url: String
        var credential: StoredCredential
    }

    struct ProxyEntry: Sendable, Equatable {
        var space: ProxyProtectionSpace
        var credential: StoredCredential
    }

    private struct Entries {
        /// Oldest first; a save replaces the entry of the same space, so there is one per space.
        var servers: [Entry] = []
        var proxies: [ProxyEntry] = []
    }

    private let entries = Locked(Entries())

    init() {}

    // MARK: Servers

    /// Remembers `credential` as having worked for `url` in `realm` with `method`; it replaces
    /// what the store held for that same space. Nothing for a URL that is not http(s).
    func save(_ credential: StoredCredential, for url: URL, realm: String?, method: AuthenticationMethod?) {
        guard let space = ProtectionSpace(url: url, realm: realm, method: method) else { return }
        let entry = Entry(space: space, url: Self.key(url), credential: credential)
        entries.withLock { store in
            store.servers.removeAll { $0.space == space }
            store.servers.append(entry)
        }
    }

    /// The credentials to offer a request for `url`, before it is sent or after a challenge.
    ///
    /// - Parameters:
    ///   - realm: the challenge's realm when one is known: an entry of another realm is skipped.
    ///   - method: the challenge's method when known: an entry saved for another method is skipped.
    ///   - requiredCredential: the request's own user and password, when it has them: only an entry
    ///     holding the same ones matches (ASI: stored credentials never replace the request's own).
    func bestMatch(
        for url: URL, realm: String? = nil, method: AuthenticationMethod? = nil,
        requiring requiredCredential: StoredCredential? = nil
    ) -> Entry? {
        guard let space = ProtectionSpace(url: url) else { return nil }
        let key = Self.key(url)
        let servers = entries.withLock { $0.servers }
        let candidates = servers.filter { entry in
            guard entry.space.isSameServer(as: space) else { return false }
            if let realm, entry.space.realm != realm { return false }
            if let method, let saved = entry.space.method, saved != method { return false }
            if let requiredCredential {
                guard entry.credential.user == requiredCredential.user,
                    entry.credential.password == requiredCredential.password
                else { return false }
            }
            return true
        }
        return candidates.last { $0.url == key } ?? candidates.last
    }

    /// Forgets `credential` for the server of `url` after that server rejected it: every entry of
    /// the same scheme, host and port holding it (in `realm`, when known), so no other request
    /// offers it again. Other credentials for the server stay.
    func removeRejected(_ credential: StoredCredential, for url: URL, realm: String? = nil) {
        guard let space = ProtectionSpace(url: url) else { return }
        entries.withLock { store in
            store.servers.removeAll { entry in
                entry.space.isSameServer(as: space) && entry.credential == credential
                    && (realm == nil || entry.space.realm == realm)
            }
        }
    }

    // MARK: Proxies

    /// Remembers `credential` as having worked for the proxy at `host`:`port` in `realm`.
    func saveProxy(
        _ credential: StoredCredential, host: String, port: Int, realm: String?, method: AuthenticationMethod?
    ) {
        let space = ProxyProtectionSpace(host: host, port: port, realm: realm, method: method)
        entries.withLock { store in
            store.proxies.removeAll { $0.space == space }
            store.proxies.append(ProxyEntry(space: space, credential: credential))
        }
    }

    /// The credentials to offer the proxy at `host`:`port`; the realm and method filter as for
    /// servers. Never another proxy host or port.
    func bestProxyMatch(
        host: String, port: Int, realm: String? = nil, method: AuthenticationMethod? = nil
    ) -> ProxyEntry? {
        let lowered = host.lowercased()
        return entries.withLock { $0.proxies }.last { entry in
            guard entry.space.host == lowered, entry.space.port == port else { return false }
            if let realm, entry.space.realm != realm { return false }
            if let method, let saved = entry.space.method, saved != method { return false }
            return true
        }
    }

    /// Forgets `credential` for the proxy at `host`:`port` after the proxy rejected it.
    func removeRejectedProxy(_ credential: StoredCredential, host: String, port: Int, realm: String? = nil) {
        let lowered = host.lowercased()
        entries.withLock { store in
            store.proxies.removeAll { entry in
                entry.space.host == lowered && entry.space.port == port && entry.credential == credential
                    && (realm == nil || entry.space.realm == realm)
            }
        }
    }

    // MARK: Everything

    /// Forgets every server and proxy entry (`HTTPRequest.clearSession()`).
    func clear() {
        entries.withLock { $0 = Entries() }
    }

    /// True when nothing is stored: every attempt asks, and most find nothing.
    var isEmpty: Bool {
        entries.withLock { $0.servers.isEmpty && $0.proxies.isEmpty }
    }

    /// How many server and proxy entries there are, for tests and the debug log.
    var count: (servers: Int, proxies: Int) {
        entries.withLock { ($0.servers.count, $0.proxies.count) }
    }

    /// The URL as compared for an exact match: its fragment never reaches the server, so it
    /// does not count; nor does the spelling of the host or a default port.
    private static func key(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteString }
        components.fragment = nil
        components.user = nil
        components.password = nil
        components.host = components.host?.lowercased()
        if let port = components.port, port == ProtectionSpace.defaultPort(for: components.scheme ?? "") {
            components.port = nil
        }
        return components.string ?? url.absoluteString
    }
}
