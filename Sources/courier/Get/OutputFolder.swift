import Foundation

/// The folder downloads are saved into, and the names they get there.
///
/// Each download is reserved a name before it starts, free both on disk and in the batch, so
/// its `.part` file is its own; once complete, it is linked into place under that name (or the
/// server's, with `--content-disposition`) without ever replacing a file, unless `--force`.
/// Names never leave the folder: they are single path components, never "." or "..".
///
/// Used on the main queue only, so a name that was free when chosen is claimed before the next.
@MainActor
final class OutputFolder {
    /// How many " (n)" names to try before giving up on a name.
    static let maxAttempts = 10_000

    /// The folder the files go to.
    let directory: URL
    /// The folder as the user typed it, for the result lines ("." by default).
    let displayDirectory: String
    /// `--force`: replace existing files rather than choose a free name.
    let overwrites: Bool
    /// Names given to downloads of this batch that have not finished.
    private var reserved: Set<String> = []
    /// Names whose download will be saved under another (the server's), but whose `.part`
    /// file is still being written: no other download may take them, though one may be saved
    /// under them.
    private var partsOnly: Set<String> = []

    /// The folder at `path`, created (with its parents) when missing.
    init(path: String, overwrites: Bool) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw SaveError(description: "\(path) is not a directory") }
        } else {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        guard access(path, W_OK) == 0 else { throw SaveError(description: "cannot write in \(path)") }
        directory = URL(fileURLWithPath: path, isDirectory: true)
        displayDirectory = path
        self.overwrites = overwrites
    }

    /// The path of `name` in the folder.
    func path(of name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// A name for `baseName`'s download: the first candidate no file has (any, with `--force`)
    /// and no other download of the batch holds.
    func reserveName(for baseName: String) throws -> String {
        for attempt in 0...Self.maxAttempts {
            let name = OutputFileNamer.candidate(baseName, attempt: attempt)
            guard !reserved.contains(name), !partsOnly.contains(name) else { continue }
            if !overwrites, exists(name) { continue }
            reserved.insert(name)
            return name
        }
        throw SaveError(description: "no free name for \(baseName) in \(displayDirectory)")
    }

    /// Reserves exactly `name` (`-O FILE`): it fails when a file has it, unless `--force`.
    func reserveExactly(_ name: String) throws -> String {
        if !overwrites, exists(name) {
            throw SaveError(description: "\(displayPath(of: name)) exists; --force replaces it")
        }
        reserved.insert(name)
        return name
    }

    /// The download reserved `name` is done with it.
    func release(_ name: String) {
        reserved.remove(name)
        partsOnly.remove(name)
    }

    /// The download reserved `name` will be saved under another name: another download of the
    /// batch may be saved as `name`, but none may write its `.part`.
    func keepOnlyPart(of name: String) {
        guard reserved.remove(name) != nil else { return }
        partsOnly.insert(name)
    }

    /// Gives the finished file at `staging` its name: `preferred` (the server's) or else the
    /// reserved one, made free with " (n)" if another program took it meanwhile. With `--force`
    /// it replaces what has the name. Returns the name the file got.
    func claim(
        _ staging: String, preferred: String?, reserved reservedName: String, exactly: Bool = false
    ) throws
        -> String
    {
        let baseName = preferred ?? reservedName
        if overwrites {
            guard rename(staging, path(of: baseName)) == 0 else {
                throw SaveError(description: "cannot create \(displayPath(of: baseName)): \(describe(errno))")
            }
            return baseName
        }
        for attempt in 0...(exactly ? 0 : Self.maxAttempts) {
            let name = OutputFileNamer.candidate(baseName, attempt: attempt)
            // Another download's name is its own, even before its file exists.
            if name != reservedName, reserved.contains(name) { continue }
            if try link(staging, as: name) { return name }
        }
        if exactly { throw SaveError(description: "\(displayPath(of: baseName)) exists; --force replaces it") }
        throw SaveError(description: "no free name for \(baseName) in \(displayDirectory)")
    }

    /// The path of a saved file as the result line shows it: under the folder as typed.
    func displayPath(of name: String) -> String {
        let separator = displayDirectory.hasSuffix("/") ? "" : "/"
        return displayDirectory + separator + name
    }

    private func exists(_ name: String) -> Bool {
        var status = stat()
        // lstat: a dangling symbolic link is a name taken too.
        return lstat(path(of: name), &status) == 0
    }

    /// Gives the file at `staging` the name `name` unless something already has it; false when
    /// the name is taken. The staging file goes once it has its name.
    private func link(_ staging: String, as name: String) throws -> Bool {
        let destination = path(of: name)
        // link(2) fails with EEXIST instead of replacing, so checking and taking the name are
        // one step: no other program's file is ever overwritten.
        if Glibc.link(staging, destination) == 0 {
            unlink(staging)
            return true
        }
        let linkError = errno
        if linkError == EEXIST { return false }
        // Some file systems (FAT, some FUSE mounts) have no hard links: fall back to rename(2),
        // after a check that leaves a small window but never replaces a file it saw.
        guard [EPERM, EOPNOTSUPP, EMLINK, ENOSYS].contains(linkError) else {
            throw SaveError(description: "cannot create \(displayPath(of: name)): \(describe(linkError))")
        }
        if exists(name) { return false }
        guard rename(staging, destination) == 0 else {
            throw SaveError(description: "cannot create \(displayPath(of: name)): \(describe(errno))")
        }
        return true
    }

    private func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
