import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why the credential file could not be used. Its description names the file and says what to do.
enum CredentialStoreError: Error, Equatable, CustomStringConvertible {
    /// Group or others may read or write the file: it is neither read nor written.
    case permissionsTooWide(path: String, mode: UInt32)
    /// Another user owns the file: it is neither read nor written.
    case notOwned(path: String, owner: UInt32)
    /// A symbolic link, a directory or a device where the file should be.
    case notARegularFile(path: String)
    /// The contents are not a credential file this Courier reads.
    case damaged(path: String, reason: String)
    /// A file system call failed.
    case fileSystem(path: String, operation: String, errno: Int32)

    var description: String {
        switch self {
        case .permissionsTooWide(let path, let mode):
            "The credential file \(path) is refused: its mode is \(String(mode & 0o777, radix: 8)), "
                + "so others may read it; only its owner may (chmod 600 \(path))"
        case .notOwned(let path, let owner):
            "The credential file \(path) is refused: it belongs to user \(owner), not to this process's user"
        case .notARegularFile(let path):
            "The credential file \(path) is refused: it is not a regular file (a symbolic link or a directory)"
        case .damaged(let path, let reason):
            "The credential file \(path) is damaged: \(reason)"
        case .fileSystem(let path, let operation, let code):
            "The credential file \(path) could not be used: \(operation) failed: \(String(cString: strerror(code)))"
        }
    }

    /// The error as a request reports it (`fileManagement`, 8).
    var requestError: HTTPRequestError {
        HTTPRequestError(type: .fileManagement, message: description, underlyingError: self)
    }
}
