import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reads and writes the credential file with the care a password file needs: only a regular
/// file of this user that nobody else may read is read or replaced; a new file is made 0600 in a
/// 0700 directory and replaces the old one atomically (a temporary file in the same directory,
/// fsync, rename, fsync of the directory), so a crash leaves the old file or the new one, never
/// half of one.
enum CredentialFileIO {
    /// The file's contents; nil when there is no file yet.
    static func read(_ path: String) throws(CredentialStoreError) -> CredentialFile? {
        Engine.assertNotEngineThread("reading the credential file")
        // O_NOFOLLOW: a symbolic link could point at a file the checks below were never meant for.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw .notARegularFile(path: path) }
            throw .fileSystem(path: path, operation: "open", errno: code)
        }
        defer { close(descriptor) }
        try check(descriptor, path: path)
        let data = try readAll(descriptor, path: path)
        switch CredentialFile.decode(data) {
        case .success(let file): return file
        case .failure(let failure): throw .damaged(path: path, reason: failure.reason)
        }
    }

    /// Replaces the file with `file`, making its directory (0700) when missing.
    static func write(_ file: CredentialFile, to path: String) throws(CredentialStoreError) {
        Engine.assertNotEngineThread("writing the credential file")
        let data: Data
        do {
            data = try file.encoded()
        } catch {
            throw .damaged(path: path, reason: "it could not be encoded: \(error)")
        }
        let directory = (path as NSString).deletingLastPathComponent
        try makeDirectory(directory)
        var template = Array((directory + "/.credentials-XXXXXX").utf8CString)
        // mkstemp makes the file 0600 (O_EXCL, owner only); fchmod says so whatever the umask.
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .fileSystem(path: directory, operation: "mkstemp", errno: errno) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            guard fchmod(descriptor, 0o600) == 0 else { throw fileSystemError(temporary, "fchmod") }
            try writeAll(data, to: descriptor, path: temporary)
            guard fsync(descriptor) == 0 else { throw fileSystemError(temporary, "fsync") }
        }
        guard rename(temporary, path) == 0 else { throw fileSystemError(path, "rename") }
        renamed = true
        syncDirectory(directory)
    }

    /// Moves a damaged file aside (to `path.damaged`) so a save can start a new one without
    /// destroying what the user may still want to look at. Returns where it went.
    static func moveAside(_ path: String) throws(CredentialStoreError) -> String {
        let aside = path + ".damaged"
        guard rename(path, aside) == 0 else { throw fileSystemError(path, "rename") }
        return aside
    }

    /// Runs `body` holding an exclusive `flock` on `directory`, so two processes saving at once
    /// each see the other's entries instead of one save silently losing the other's.
    static func withDirectoryLock<Result>(
        _ directory: String, _ body: () throws(CredentialStoreError) -> Result
    ) throws(CredentialStoreError) -> Result {
        Engine.assertNotEngineThread("locking the credential file")
        try makeDirectory(directory)
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw fileSystemError(directory, "open") }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw fileSystemError(directory, "flock") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    // MARK: Details

    private static func check(_ descriptor: Int32, path: String) throws(CredentialStoreError) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw fileSystemError(path, "fstat") }
        guard status.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        guard status.st_uid == geteuid() else { throw .notOwned(path: path, owner: status.st_uid) }
        guard status.st_mode & 0o077 == 0 else { throw .permissionsTooWide(path: path, mode: status.st_mode) }
    }

    private static func readAll(_ descriptor: Int32, path: String) throws(CredentialStoreError) -> Data {
        switch FileDescriptorReading.readAll(descriptor) {
        case .success(let data): return data
        case .failure(let failure):
            errno = failure.code
            throw fileSystemError(path, "read")
        }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws(CredentialStoreError) {
        var offset = 0
        while offset < data.count {
            let count = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, data.count - offset) }
            if count > 0 {
                offset += count
            } else if errno != EINTR {
                throw fileSystemError(path, "write")
            }
        }
    }

    /// Makes `directory` and any missing parent, each 0700: the parents of the default path
    /// (~/.local/share) are the user's own.
    private static func makeDirectory(_ directory: String) throws(CredentialStoreError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != directory { try makeDirectory(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw fileSystemError(directory, "mkdir") }
    }

    /// Makes the rename itself durable; a failure here loses nothing already written, so it is
    /// not reported.
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func fileSystemError(_ path: String, _ operation: String) -> CredentialStoreError {
        .fileSystem(path: path, operation: operation, errno: errno)
    }
}
