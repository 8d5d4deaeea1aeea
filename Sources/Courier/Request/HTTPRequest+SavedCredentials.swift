import Foundation

/// The persistent credential store (ASI's keychain methods): credentials saved here outlive the
/// process, in a file only its owner can read (see `useKeychainPersistence`).
///
/// The file is `$XDG_DATA_HOME/courier/credentials`, else `~/.local/share/courier/credentials`;
/// `COURIER_CREDENTIALS_FILE` in the environment names another. It is made with mode 0600 in a
/// 0700 directory and replaced atomically. A file that group or others may read or write, or
/// that another user owns, is refused: never read, never written; the refusal is returned and
/// logged. A damaged file is reported the same way; a save moves it aside to
/// `credentials.damaged` and starts a new one.
///
/// All of these may be called from any thread; each reads or writes the file before it returns.
extension HTTPRequest {
    /// Saves `credentials` (its user and password) for the server at `host`:`port` speaking
    /// `protocol` ("http" or "https") in `realm`; port 0 means the protocol's default. A nil realm
    /// applies to every realm of that server. Any thread.
    ///
    /// - Returns: nil when saved, else why not (`fileManagement`), which is logged too.
    @discardableResult
    public class func saveCredentials(
        _ credentials: URLCredential, forHost host: String, port: Int, protocol scheme: String, realm: String?
    ) -> HTTPRequestError? {
        guard let credential = StoredCredential(credentials) else {
            return HTTPRequestError(type: .fileManagement, message: "A credential without a user name cannot be saved")
        }
        return reported {
            () throws(CredentialStoreError) in
            try PersistentCredentialStore.save(credential, protocol: scheme, host: host, port: port, realm: realm)
        }
    }

    /// Removes the credentials saved for the server in exactly `realm`; when there are none,
    /// nothing happens. Any thread.
    ///
    /// - Returns: nil when removed or absent, else why the file could not be changed (logged too).
    @discardableResult
    public class func removeCredentials(
        forHost host: String, port: Int, protocol scheme: String, realm: String?
    ) -> HTTPRequestError? {
        reported { () throws(CredentialStoreError) in
            try PersistentCredentialStore.remove(protocol: scheme, host: host, port: port, realm: realm)
        }
    }

    /// The credentials saved for the server: those for exactly `realm`, else those saved without
    /// a realm; nil when there are none or the file is refused or damaged (which is logged). Any
    /// thread.
    public class func savedCredentials(
        forHost host: String, port: Int, protocol scheme: String, realm: String?
    ) -> URLCredential? {
        lookedUp { () throws(CredentialStoreError) in
            try PersistentCredentialStore.credential(protocol: scheme, host: host, port: port, realm: realm)
        }
    }

    /// Saves `credentials` for the proxy at `host`:`port` in `realm`. Any thread.
    ///
    /// - Returns: nil when saved, else why not (`fileManagement`), which is logged too.
    @discardableResult
    public class func saveCredentials(
        _ credentials: URLCredential, forProxy host: String, port: Int, realm: String?
    ) -> HTTPRequestError? {
        guard let credential = StoredCredential(credentials) else {
            return HTTPRequestError(type: .fileManagement, message: "A credential without a user name cannot be saved")
        }
        return reported { () throws(CredentialStoreError) in
            try PersistentCredentialStore.saveProxy(credential, host: host, port: port, realm: realm)
        }
    }

    /// Removes the credentials saved for the proxy in exactly `realm`; when there are none,
    /// nothing happens. Any thread.
    ///
    /// - Returns: nil when removed or absent, else why the file could not be changed (logged too).
    @discardableResult
    public class func removeCredentials(forProxy host: String, port: Int, realm: String?) -> HTTPRequestError? {
        reported { () throws(CredentialStoreError) in
            try PersistentCredentialStore.removeProxy(host: host, port: port, realm: realm)
        }
    }

    /// The credentials saved for the proxy at `host`:`port`, with the same realm rule as for a
    /// server; nil when there are none or the file is refused or damaged (logged). Any thread.
    public class func savedCredentials(forProxy host: String, port: Int, realm: String?) -> URLCredential? {
        lookedUp { () throws(CredentialStoreError) in
            try PersistentCredentialStore.proxyCredential(host: host, port: port, realm: realm)
        }
    }

    private static func reported(_ body: () throws(CredentialStoreError) -> Void) -> HTTPRequestError? {
        do {
            try body()
            return nil
        } catch {
            Log.message(error.description)
            return error.requestError
        }
    }

    private static func lookedUp(_ body: () throws(CredentialStoreError) -> StoredCredential?) -> URLCredential? {
        do {
            return try body()?.urlCredential
        } catch {
            Log.message(error.description)
            return nil
        }
    }
}
