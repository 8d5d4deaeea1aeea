import Foundation

/// Courier's keychain (`useKeychainPersistence`): credentials kept across processes in one file
/// only its owner can read.
///
/// The file is, in this order: `PersistentCredentialStore.pathOverride` when set (tests), else
/// `$COURIER_CREDENTIALS_FILE`, else `$XDG_DATA_HOME/courier/credentials` (an absolute
/// XDG_DATA_HOME only, as the XDG spec says), else `~/.local/share/courier/credentials`.
/// See `CredentialFileIO` for how it is read and written, and `CredentialFile` for its format.
///
/// Any thread. Each call reads the file afresh, so another process's saves are seen; a change is
/// a read-modify-write under this process's lock and an `flock` on the directory.
enum PersistentCredentialStore {
    /// The environment variable that names the credential file.
    static let pathVariable = "COURIER_CREDENTIALS_FILE"

    /// A path that wins over the environment, for tests; nil uses the environment.
    static let pathOverride = Locked<String?>(nil)

    /// Serializes this process's read-modify-writes; a leaf lock held across the file calls only.
    private static let changes = Locked(())

    /// The credential file in use now.
    static var path: String {
        if let path = pathOverride.current { return path }
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[pathVariable], !path.isEmpty { return path }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return data + "/courier/credentials"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/courier/credentials"
    }

    // MARK: Servers

    /// The credentials saved for the server, those for exactly `realm` first, else those saved
    /// without a realm. A port of 0 is the protocol's default.
    static func credential(
        protocol scheme: String, host: String, port: Int, realm: String?
    ) throws(CredentialStoreError) -> StoredCredential? {
        let key = ServerKey(scheme: scheme, host: host, port: port)
        guard let file = try CredentialFileIO.read(path) else { return nil }
        return file.server(protocol: key.scheme, host: key.host, port: key.port, realm: realm).map {
            StoredCredential(user: $0.user, password: $0.password, domain: $0.domain)
        }
    }

    /// Saves `credential` for the server, replacing what was saved for the same space.
    static func save(
        _ credential: StoredCredential, protocol scheme: String, host: String, port: Int, realm: String?
    ) throws(CredentialStoreError) {
        let key = ServerKey(scheme: scheme, host: host, port: port)
        try change(replacingDamagedFile: true) { file in
            file.servers.removeAll { key.matches($0) && $0.realm == realm }
            file.servers.append(
                CredentialFile.Server(
                    protocol: key.scheme, host: key.host, port: key.port, realm: realm, user: credential.user,
                    password: credential.password, domain: credential.domain))
        }
    }

    /// Removes what was saved for the server in exactly `realm`; nothing saved, nothing happens.
    static func remove(protocol scheme: String, host: String, port: Int, realm: String?) throws(CredentialStoreError) {
        let key = ServerKey(scheme: scheme, host: host, port: port)
        try change(replacingDamagedFile: false) { file in
            file.servers.removeAll { key.matches($0) && $0.realm == realm }
        }
    }

    // MARK: Proxies

    /// The credentials saved for the proxy at `host`:`port`, with the same realm rule.
    static func proxyCredential(
        host: String, port: Int, realm: String?
    ) throws(CredentialStoreError)
        -> StoredCredential?
    {
        guard let file = try CredentialFileIO.read(path) else { return nil }
        return file.proxy(host: host.lowercased(), port: port, realm: realm).map {
            StoredCredential(user: $0.user, password: $0.password, domain: $0.domain)
        }
    }

    /// Saves `credential` for the proxy at `host`:`port` in `realm`.
    static func saveProxy(
        _ credential: StoredCredential, host: String, port: Int, realm: String?
    ) throws(CredentialStoreError) {
        let host = host.lowercased()
        try change(replacingDamagedFile: true) { file in
            file.proxies.removeAll { $0.host == host && $0.port == port && $0.realm == realm }
            file.proxies.append(
                CredentialFile.Proxy(
                    host: host, port: port, realm: realm, user: credential.user, password: credential.password,
                    domain: credential.domain))
        }
    }

    /// Removes what was saved for the proxy in exactly `realm`; nothing saved, nothing happens.
    static func removeProxy(host: String, port: Int, realm: String?) throws(CredentialStoreError) {
        let host = host.lowercased()
        try change(replacingDamagedFile: false) { file in
            file.proxies.removeAll { $0.host == host && $0.port == port && $0.realm == realm }
        }
    }

    // MARK: Details

    /// Reads the file, applies `edit`, and writes it back when `edit` changed it. A refused file
    /// (permissions, owner, not a file) is left as it is. A damaged one stops a removal; a save
    /// moves it aside first, so the save still works and the old bytes stay for the user to see.
    private static func change(
        replacingDamagedFile: Bool, _ edit: (inout CredentialFile) -> Void
    ) throws(CredentialStoreError) {
        let path = path
        let directory = (path as NSString).deletingLastPathComponent
        // Result carries the typed error out: withLock rethrows, which would widen it to any Error.
        let outcome = changes.withLock { _ in
            Result { () throws(CredentialStoreError) in
                try CredentialFileIO.withDirectoryLock(directory) { () throws(CredentialStoreError) in
                    var original: CredentialFile?
                    do throws(CredentialStoreError) {
                        original = try CredentialFileIO.read(path)
                    } catch {
                        guard case .damaged = error, replacingDamagedFile else { throw error }
                        let aside = try CredentialFileIO.moveAside(path)
                        Log.message("\(error.description); it was moved to \(aside) and a new file started")
                    }
                    var file = original ?? CredentialFile()
                    edit(&file)
                    // Nothing changed, or nothing to keep and no file yet: no write (a removal
                    // of what was never saved leaves no file behind).
                    guard file != original, original != nil || !(file.servers.isEmpty && file.proxies.isEmpty)
                    else { return }
                    try CredentialFileIO.write(file, to: path)
                }
            }
        }
        try outcome.get()
    }

    /// A server's protocol, host and port as the file stores them.
    private struct ServerKey {
        let scheme: String
        let host: String
        let port: Int

        init(scheme: String, host: String, port: Int) {
            self.scheme = scheme.lowercased()
            self.host = host.lowercased()
            self.port = port > 0 ? port : ProtectionSpace.defaultPort(for: scheme) ?? port
        }

        func matches(_ server: CredentialFile.Server) -> Bool {
            server.protocol == scheme && server.host == host && server.port == port
        }
    }
}
