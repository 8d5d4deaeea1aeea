import CourierTestServer
import Foundation

extension InteropServers {
    /// Writes `size` bytes of the deterministic pattern (byte `i` is `UInt8(i % 251)`, as
    /// `TestServer.deterministicBytes(count:)`) to `name` in ``docroot``, replacing any file there,
    /// and returns its location on disk. nginx serves it as `/files/NAME` and `/gzip/NAME`.
    /// - Parameter name: a path relative to ``docroot``; missing directories are made.
    @discardableResult
    func makeFile(named name: String, size: Int) throws -> URL {
        precondition(size >= 0, "size must be non-negative")
        let file = docroot.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        // A whole number of periods, so the same chunk continues the pattern at every offset.
        let chunk = TestServer.deterministicBytes(count: 251 * 4096)
        var remaining = size
        while remaining > 0 {
            let count = min(remaining, chunk.count)
            try handle.write(contentsOf: count == chunk.count ? chunk : chunk.prefix(count))
            remaining -= count
        }
        return file
    }

    /// The lowercase hex MD5 digest of `name` in ``uploads`` (what `PUT /upload/NAME` stored).
    /// - Throws: when there is no such file (`md5sum` fails).
    func md5(ofUploaded name: String) throws -> String {
        try ExternalTool.md5(of: uploads.appendingPathComponent(name))
    }
}
