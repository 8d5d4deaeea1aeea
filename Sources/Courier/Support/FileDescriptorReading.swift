import Glibc

import struct Foundation.Data

/// Reading a file through its descriptor, for the code that opens its files itself: the stores
/// (the credential file, the download cache) check what they opened before reading it whole, and
/// a body's SHA-256 is taken a chunk at a time.
enum FileDescriptorReading {
    /// A read that failed, with its `errno`.
    struct Failure: Error {
        let code: Int32
    }

    /// Everything left to read from `descriptor`.
    static func readAll(_ descriptor: Int32) -> Result<Data, Failure> {
        var data = Data()
        return readChunks(descriptor, size: 64 * 1024) { data.append(contentsOf: $0) }.map { data }
    }

    /// Reads what is left of `descriptor` `size` bytes at a time (at least 1), handing each piece
    /// to `body` as it comes, so a file of any size needs only the one buffer. A read interrupted
    /// by a signal is made again; any other failure ends it.
    static func readChunks(
        _ descriptor: Int32, size: Int, _ body: (UnsafeRawBufferPointer) -> Void
    ) -> Result<Void, Failure> {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 {
                body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            } else if count == 0 {
                return .success(())
            } else if errno != EINTR {
                return .failure(Failure(code: errno))
            }
        }
    }
}
