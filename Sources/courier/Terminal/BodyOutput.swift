import Foundation

/// Where a response body is written as it arrives when it is not a download file: standard
/// output (`get -O -`, `post`) or `post -o FILE`.
///
/// Plain `write(2)` on the descriptor, so that a failed write is known at once and by its
/// `errno`: the transfer it belongs to is stopped and its result line says why, instead of the
/// rest of the body going nowhere under an "ok" (`courier get -O - URL | head -c 10`).
struct BodyOutput {
    /// Why bytes could not be written; its description goes on the result line.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let code: Int32
        /// How many of the bytes were written before the failure.
        var written = 0

        var description: String {
            switch code {
            case EPIPE: "standard output closed"
            case ENOSPC: "no space left"
            case EFBIG: "file too large"
            case EDQUOT: "disk quota exceeded"
            default: String(cString: strerror(code))
            }
        }
    }

    /// Standard output.
    static let standardOutput = BodyOutput(descriptor: STDOUT_FILENO)

    let descriptor: Int32

    /// Writes all of `data`, or throws why not (and how much was written).
    func write(_ data: Data) throws(Failure) {
        let failure: Failure? = data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return Failure(code: errno, written: offset)
                }
                offset += written
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Closes the descriptor: a file system that reports a failed write only at close (NFS, a
    /// full disk with delayed allocation) fails the transfer here rather than being ignored.
    func close() throws(Failure) {
        if Glibc.close(descriptor) != 0, errno != EINTR { throw Failure(code: errno) }
    }
}
