import Foundation

/// Writes a response body to a file from the engine thread: plain `write(2)` calls on a
/// descriptor opened when the final head arrived, so an empty body still makes a file and a
/// full disk surfaces as an error naming the path.
final class FileBodyWriter {
    let path: String
    private var descriptor: Int32

    /// Opens (creating) `path`, truncated, or for appending when resuming.
    init(path: String, appending: Bool) throws(HTTPRequestError) {
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC)
        descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else { throw Self.error("open", path: path, errno: errno) }
    }

    deinit {
        close()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPRequestError) {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.error("write", path: path, errno: errno)
            }
            offset += written
        }
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    static func error(_ operation: String, path: String, errno code: Int32) -> HTTPRequestError {
        HTTPRequestError(
            type: .fileManagement,
            message: "Could not \(operation) the download file \(path): \(String(cString: strerror(code)))",
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }
}

@available(*, unavailable, message: "FileBodyWriter is confined to the engine thread")
extension FileBodyWriter: Sendable {}
