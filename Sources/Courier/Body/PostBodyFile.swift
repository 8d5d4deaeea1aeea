import Foundation

/// Writes `appendPostData` calls into `postBodyFilePath` when `shouldStreamPostDataFromDisk` is
/// on, as ASI did: the request's first append starts the file afresh (creating it), later ones
/// add to its end. Plain `open`/`write` on the caller's thread, the descriptor closed each time,
/// so nothing stays open once the caller has its answer.
enum PostBodyFile {
    /// What went wrong: the file to read from, or the body file, with the system's reason.
    enum Failure: Error {
        case unreadable(path: String)
        case unwritable(message: String)
    }

    /// ASI's chunk for `appendPostDataFromFile:`: 256 KiB.
    private static let chunkSize = 256 * 1024

    /// Writes `data` to the body file at `path`, truncating it first when `startsAfresh`.
    static func append(_ data: Data, to path: String, startsAfresh: Bool) throws(Failure) {
        let descriptor = try open(path, startsAfresh: startsAfresh)
        defer { close(descriptor) }
        // `withUnsafeBytes` rethrows untyped: the failure comes out as a value.
        let failure = data.withUnsafeBytes { bytes -> Failure? in
            do throws(Failure) {
                try write(bytes, to: descriptor, path: path)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Copies the file at `source` to the body file at `path`, chunk by chunk (never read whole).
    static func append(contentsOf source: String, to path: String, startsAfresh: Bool) throws(Failure) {
        // The body file first, as ASI set up its storage before reading.
        let descriptor = try open(path, startsAfresh: startsAfresh)
        defer { close(descriptor) }
        let input = Glibc.open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .unreadable(path: source) }
        defer { close(input) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(input, buffer.baseAddress!, chunkSize)
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: source)
            }
            if count == 0 { return }
            try write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), to: descriptor, path: path)
        }
    }

    private static func open(_ path: String, startsAfresh: Bool) throws(Failure) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (startsAfresh ? O_TRUNC : O_APPEND)
        let descriptor = Glibc.open(path, flags, 0o644)
        guard descriptor >= 0 else { throw unwritable(path, "cannot be opened for writing", errno: errno) }
        return descriptor
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw unwritable(path, "cannot be written", errno: errno)
            }
            offset += written
        }
    }

    private static func unwritable(_ path: String, _ what: String, errno code: Int32) -> Failure {
        .unwritable(message: "The body file \(path) \(what): \(String(cString: strerror(code)))")
    }
}
