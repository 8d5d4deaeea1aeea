import Glibc

import struct Foundation.Data

/// Reading a whole file through its descriptor, for the stores that open their files themselves
/// (the credential file, the download cache): they check what they opened before reading it.
enum FileDescriptorReading {
    /// A read that failed, with its `errno`.
    struct Failure: Error {
        let code: Int32
    }

    /// Everything left to read from `descriptor`.
    static func readAll(_ descriptor: Int32) -> Result<Data, Failure> {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count == 0 {
                return .success(data)
            } else if errno != EINTR {
                return .failure(Failure(code: errno))
            }
        }
    }
}
