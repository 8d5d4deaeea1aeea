import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file operation of the download cache that failed, with the path and errno.
struct CacheFileError: Error, CustomStringConvertible {
    var path: String
    var operation: String
    var code: Int32

    var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }
}

/// The POSIX calls the download cache makes: temporary files made beside their final name,
/// whole writes and reads that retry EINTR, copies in chunks, and renames.
enum CacheFileIO {
    /// Makes `path` and its parents (0700: a cache may hold private responses).
    static func makeDirectory(_ path: String) throws {
        Engine.assertNotEngineThread("making a cache folder")
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue { return }
            throw CacheFileError(path: path, operation: "mkdir", code: EEXIST)
        }
    }

    /// A new empty file in `directory` (hidden, mkstemp's unique name), open for writing.
    static func makeTemporaryFile(in directory: String) throws -> (descriptor: Int32, path: String) {
        Engine.assertNotEngineThread("writing the download cache")
        var template = Array((directory + "/.tmp-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw CacheFileError(path: directory, operation: "mkstemp", code: errno) }
        // Glibc's mkostemp is not imported; a child started meanwhile need not inherit the file.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (descriptor, path)
    }

    /// Writes `data` into a new temporary file in `directory`; returns its path.
    static func writeTemporary(_ data: Data, in directory: String) throws -> String {
        let (descriptor, path) = try makeTemporaryFile(in: directory)
        defer { close(descriptor) }
        do {
            try writeAll(data, to: descriptor, path: path)
        } catch {
            unlink(path)
            throw error
        }
        return path
    }

    /// Copies the file at `source` into a new temporary file in `directory`; returns its path
    /// and the number of bytes copied.
    static func copyToTemporary(_ source: String, in directory: String) throws -> (path: String, length: Int) {
        Engine.assertNotEngineThread("writing the download cache")
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CacheFileError(path: source, operation: "open", code: errno) }
        defer { close(input) }
        let (descriptor, path) = try makeTemporaryFile(in: directory)
        defer { close(descriptor) }
        do {
            return (path, try copyContents(of: input, from: source, to: descriptor, at: path))
        } catch {
            unlink(path)
            throw error
        }
    }

    /// Copies everything `input` (the file at `source`) still holds to `output` (the file at
    /// `path`), 64 KiB at a time; returns the number of bytes copied. A failed read or write
    /// throws, naming its file.
    private static func copyContents(
        of input: Int32, from source: String, to output: Int32, at path: String
    ) throws -> Int {
        var length = 0
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if count == 0 { return length }
            if count < 0 {
                if errno == EINTR { continue }
                throw CacheFileError(path: source, operation: "read", code: errno)
            }
            try buffer.withUnsafeBytes { try writeAll(UnsafeRawBufferPointer(rebasing: $0[..<count]), output, path) }
            length += count
        }
    }

    /// Copies the file at `source` to a new file at `path`, made with mode 0666 less the umask,
    /// as any file a program saves: the cache's own files are 0600, and a copy made with
    /// `FileManager.copyItem` would keep that mode.
    static func copy(_ source: String, toNewFile path: String) throws {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw CacheFileError(path: source, operation: "open", code: errno) }
        defer { close(input) }
        let output = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard output >= 0 else { throw CacheFileError(path: path, operation: "create", code: errno) }
        do {
            _ = try copyContents(of: input, from: source, to: output, at: path)
        } catch {
            close(output)
            unlink(path)
            throw error
        }
        // A write some file systems report only at close (NFS) must fail the copy too.
        guard close(output) == 0 else {
            let code = errno
            unlink(path)
            throw CacheFileError(path: path, operation: "close", code: code)
        }
    }

    /// The whole regular file at `path`, not following a symbolic link; nil when there is none.
    /// Anything else there (a link, a FIFO, a folder) throws ELOOP or EINVAL.
    static func readFile(_ path: String) throws -> Data? {
        guard let descriptor = try openRegularFile(path) else { return nil }
        defer { close(descriptor) }
        return try readAll(descriptor, path: path)
    }

    /// A descriptor for the regular file at `path`, or nil when there is none. O_NONBLOCK: a
    /// FIFO put in a cache folder would block open(2) for a reader until a writer came; on a
    /// regular file the flag changes nothing.
    static func openRegularFile(_ path: String) throws -> Int32? {
        Engine.assertNotEngineThread("reading the download cache")
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw CacheFileError(path: path, operation: "open", code: errno)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw CacheFileError(path: path, operation: "open a regular file", code: EINVAL)
        }
        return descriptor
    }

    /// Everything left to read from `descriptor`.
    static func readAll(_ descriptor: Int32, path: String) throws -> Data {
        switch FileDescriptorReading.readAll(descriptor) {
        case .success(let data): return data
        case .failure(let failure): throw CacheFileError(path: path, operation: "read", code: failure.code)
        }
    }

    /// Renames `source` over `destination` (atomic within one file system).
    static func rename(_ source: String, to destination: String) throws {
        Engine.assertNotEngineThread("writing the download cache")
        guard Glibc.rename(source, destination) == 0 else {
            throw CacheFileError(path: destination, operation: "rename", code: errno)
        }
    }

    /// Removes the file at `path`; a file already gone is fine. Returns what went wrong, for the
    /// caller to log once it holds no lock (a log handler is user code).
    @discardableResult
    static func remove(_ path: String) -> String? {
        Engine.assertNotEngineThread("removing from the download cache")
        guard unlink(path) != 0, errno != ENOENT else { return nil }
        return "the cache file \(path) could not be removed: \(String(cString: strerror(errno)))"
    }

    /// Removes the file at `path`, logging a failure; for callers holding no lock.
    static func removeLogging(_ path: String) {
        if let failure = remove(path) { Log.message(failure) }
    }

    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { try writeAll($0, descriptor, path) }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, _ descriptor: Int32, _ path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count > 0 {
                offset += count
            } else if errno != EINTR {
                throw CacheFileError(path: path, operation: "write", code: errno)
            }
        }
    }
}
