import Foundation

/// A TCP socket listening on 127.0.0.1, on a port the kernel chose: what the tests' own small
/// servers (silent, unaccepting) are built on.
public enum LoopbackListeningSocket {
    /// Opens, binds and listens with `backlog`; returns the descriptor and its port.
    /// - Throws: `POSIXError` with the failing call's errno.
    public static func open(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, backlog) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard listening else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
