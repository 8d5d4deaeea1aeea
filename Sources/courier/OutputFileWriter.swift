import Foundation

/// Saves response bodies into one directory, each under a name no other file has, so that a
/// file appears there complete or not at all.
///
/// Used on the main queue only, one body at a time: a name that was free when chosen is
/// claimed before the next body is saved.
struct OutputFileWriter {
    /// How many " (n)" names to try before giving up on a name.
    static let maxAttempts = 10_000

    /// The directory the files go to.
    let directory: URL
    /// The directory as the user typed it, for the result lines ("." by default).
    let displayDirectory: String

    /// The directory at `path`, created (with its parents) when missing.
    static func prepareDirectory(atPath path: String) throws -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw SaveError(description: "\(path) is not a directory") }
        } else {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Writes `data` under a temporary name in the directory, then gives it the first free name
    /// for `url`, and returns the file's URL.
    func save(_ data: Data, for url: URL) throws -> URL {
        // The temporary file lives in the destination directory so the final step is a link or
        // rename within one file system: atomic, never a copy.
        let temporary = directory.appendingPathComponent(".courier-\(UUID().uuidString).part")
        do {
            try data.write(to: temporary)
        } catch {
            throw SaveError(description: "cannot write in \(displayDirectory): \(error.localizedDescription)")
        }
        defer { unlink(temporary.path) }
        let baseName = OutputFileNamer.baseName(for: url)
        for attempt in 0...Self.maxAttempts {
            let destination = directory.appendingPathComponent(OutputFileNamer.candidate(baseName, attempt: attempt))
            if try claim(destination, with: temporary) { return destination }
        }
        throw SaveError(description: "no free name for \(baseName) in \(displayDirectory)")
    }

    /// The path of a saved file as the result line shows it: under the directory as typed.
    func displayPath(for file: URL) -> String {
        let separator = displayDirectory.hasSuffix("/") ? "" : "/"
        return displayDirectory + separator + file.lastPathComponent
    }

    /// Gives the temporary file the name `destination` unless something already has it; false
    /// when the name is taken.
    private func claim(_ destination: URL, with temporary: URL) throws -> Bool {
        // link(2) fails with EEXIST instead of replacing, so checking and taking the name are
        // one step: no other program's file is ever overwritten.
        if link(temporary.path, destination.path) == 0 { return true }
        let linkError = errno
        if linkError == EEXIST { return false }
        // Some file systems (FAT, some FUSE mounts) have no hard links: fall back to rename(2),
        // after a check that leaves a small window but never replaces a file it saw.
        guard [EPERM, EOPNOTSUPP, EMLINK, ENOSYS].contains(linkError) else {
            throw SaveError(description: "cannot create \(displayPath(for: destination)): \(describe(linkError))")
        }
        if (try? FileManager.default.attributesOfItem(atPath: destination.path)) != nil { return false }
        guard rename(temporary.path, destination.path) == 0 else {
            throw SaveError(description: "cannot create \(displayPath(for: destination)): \(describe(errno))")
        }
        return true
    }

    private func describe(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
