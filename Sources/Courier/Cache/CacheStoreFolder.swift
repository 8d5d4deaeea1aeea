import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One store of a `DownloadCache` (`SessionStore` or `PermanentStore`): a folder of entries,
/// each a body file and a metadata file named by its `CacheKey`.
///
/// Writers make their files under temporary names in the folder (the slow part, unlocked), then
/// take the folder's `flock` exclusively for the renames: metadata removed, body renamed in,
/// metadata renamed in last. Readers take it shared to read the metadata and open the body. So
/// a reader in any thread or process sees a whole entry whose body and metadata belong
/// together, or none; a writer killed between its renames leaves a body without metadata, which
/// is removed as damaged. Each call opens the folder afresh, and `flock` locks belong to an open
/// file description, so threads of one process exclude each other as processes do.
struct CacheStoreFolder: Sendable {
    let path: String

    /// An entry found whole.
    struct Hit {
        var metadata: CacheEntryMetadata
        var bodyPath: String
        /// The body, opened while the entry was whole, when asked for; the caller closes it.
        var body: FileHandle?
    }

    enum Lookup {
        case hit(Hit)
        case miss
        case damaged(String)
        /// A file that could not be read for another reason than damage (too many open files, a
        /// permission): a miss, and the entry is left alone.
        case unreadable(String)
    }

    enum Body {
        case data(Data)
        case file(String)
    }

    /// The entry for `key`. A damaged one is removed (after checking again under the exclusive
    /// lock: another writer may have replaced it meanwhile) and reported as a miss.
    func entry(for key: CacheKey, openingBody: Bool = false) -> Hit? {
        switch withLock(LOCK_SH, { _ in read(key, openingBody: openingBody) }) {
        case .hit(let hit)?: return hit
        case .miss?, nil: return nil
        case .unreadable(let reason)?:
            Log.message("the cache entry \(key.hash) in \(path) could not be read: \(reason)")
            return nil
        case .damaged?:
            withLock(LOCK_EX) { notes in
                if case .damaged(let reason) = read(key, openingBody: false) {
                    notes.append("the cache entry \(key.hash) in \(path) is damaged (\(reason)): removed")
                    removeFiles(of: key, &notes)
                }
            }
            return nil
        }
    }

    /// Stores an entry for `key`, replacing what was there.
    func write(_ body: Body, for key: CacheKey, metadata: (_ bodyLength: Int) -> CacheEntryMetadata) throws {
        try CacheFileIO.makeDirectory(path)
        let bodyTemporary: String
        let length: Int
        switch body {
        case .data(let data):
            bodyTemporary = try CacheFileIO.writeTemporary(data, in: path)
            length = data.count
        case .file(let source):
            (bodyTemporary, length) = try CacheFileIO.copyToTemporary(source, in: path)
        }
        var renamed = (body: false, metadata: false)
        // Only a file still under its temporary name is removed: once renamed, that name is
        // free for another writer's mkstemp.
        defer { if !renamed.body { CacheFileIO.removeLogging(bodyTemporary) } }
        let metadataTemporary = try CacheFileIO.writeTemporary(metadata(length).encoded(), in: path)
        defer { if !renamed.metadata { CacheFileIO.removeLogging(metadataTemporary) } }
        let locked: Void? = try withLock(LOCK_EX) { notes in
            // The old metadata goes first: from here until the last rename the folder holds a
            // body without metadata (a miss), never the old metadata beside the new body.
            if let failure = CacheFileIO.remove(file(key.metadataName)) { notes.append(failure) }
            try CacheFileIO.rename(bodyTemporary, to: file(key.bodyName))
            renamed.body = true
            try CacheFileIO.rename(metadataTemporary, to: file(key.metadataName))
            renamed.metadata = true
        }
        guard locked != nil else { throw CacheFileError(path: path, operation: "flock", code: errno) }
    }

    /// Rewrites the metadata of `key`'s whole entry as `change` says; false when there is none.
    func updateMetadata(for key: CacheKey, _ change: (inout CacheEntryMetadata) -> Void) throws -> Bool {
        try withLock(LOCK_EX) { notes in
            guard case .hit(let hit) = read(key, openingBody: false) else { return false }
            var metadata = hit.metadata
            change(&metadata)
            let temporary = try CacheFileIO.writeTemporary(metadata.encoded(), in: path)
            do {
                try CacheFileIO.rename(temporary, to: file(key.metadataName))
            } catch {
                if let failure = CacheFileIO.remove(temporary) { notes.append(failure) }
                throw error
            }
            return true
        } ?? false
    }

    /// Removes `key`'s entry.
    func remove(_ key: CacheKey) {
        withLock(LOCK_EX) { notes in removeFiles(of: key, &notes) }
    }

    /// Removes every file in the folder, temporary files of unfinished writes included (those
    /// writes then fail their rename and store nothing).
    func removeAll() {
        withLock(LOCK_EX) { notes in
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names {
                var status = stat()
                // lstat: a symbolic link is removed itself, never followed; folders are left.
                if lstat(file(name), &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
                    if let failure = CacheFileIO.remove(file(name)) { notes.append(failure) }
                }
            }
        }
    }

    func file(_ name: String) -> String { path + "/" + name }

    // MARK: Under the lock

    private func read(_ key: CacheKey, openingBody: Bool) -> Lookup {
        let bodyPath = file(key.bodyName)
        let data: Data?
        do {
            data = try CacheFileIO.readFile(file(key.metadataName))
        } catch let error as CacheFileError where error.code == ELOOP || error.code == EINVAL {
            return .damaged("metadata that is not a regular file")
        } catch {
            return .unreadable("\(error)")
        }
        guard let data else {
            // A body alone is what a writer killed between its renames leaves.
            var status = stat()
            return lstat(bodyPath, &status) == 0 ? .damaged("a body without metadata") : .miss
        }
        guard let metadata = CacheEntryMetadata.decode(data) else { return .damaged("unreadable metadata") }
        guard metadata.url == key.recordedURL else { return .damaged("metadata of another URL") }
        let descriptor: Int32
        do {
            guard let opened = try CacheFileIO.openRegularFile(bodyPath) else { return .damaged("no body") }
            descriptor = opened
        } catch let error as CacheFileError where error.code == ELOOP || error.code == EINVAL {
            return .damaged("a body that is not a regular file")
        } catch {
            return .unreadable("\(error)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, Int(status.st_size) == metadata.bodyLength else {
            close(descriptor)
            return .damaged("a body of another length than its metadata's \(metadata.bodyLength) bytes")
        }
        guard openingBody else {
            close(descriptor)
            return .hit(Hit(metadata: metadata, bodyPath: bodyPath, body: nil))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        return .hit(Hit(metadata: metadata, bodyPath: bodyPath, body: handle))
    }

    private func removeFiles(of key: CacheKey, _ notes: inout [String]) {
        // Metadata first: a body alone is a miss, metadata alone would be a damaged entry.
        for name in [key.metadataName, key.bodyName] {
            if let failure = CacheFileIO.remove(file(name)) { notes.append(failure) }
        }
    }

    /// Runs `body` holding the folder's `flock` (`LOCK_SH` or `LOCK_EX`); nil, without running
    /// it, when the folder cannot be opened (it does not exist yet: nothing is stored there).
    /// What `body` notes is logged after the lock is released: a log handler is user code.
    private func withLock<Result>(
        _ operation: Int32, _ body: (_ notes: inout [String]) throws -> Result
    ) rethrows -> Result? {
        Engine.assertNotEngineThread("locking the cache folder")
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var notes: [String] = []
        defer {
            close(descriptor)
            notes.forEach { Log.message($0) }
        }
        while flock(descriptor, operation) != 0 {
            guard errno == EINTR else {
                notes.append("the cache folder \(path) could not be locked: \(String(cString: strerror(errno)))")
                return nil
            }
        }
        // Closing the descriptor would release the lock too; unlocking first says so.
        defer { flock(descriptor, LOCK_UN) }
        return try body(&notes)
    }
}
