import Foundation

/// A socket on 127.0.0.1 that listens but never accepts, its accept queue filled by
/// connections of its own: Linux then drops further SYNs, so a client's connect hangs, as it
/// does to a host that does not answer, without any traffic leaving the loopback interface.
/// For tests of connection timeouts.
public final class UnacceptingListener {
    public let port: Int
    private let descriptor: Int32
    private var fillers: [Int32] = []

    public init() throws {
        (descriptor, port) = try LoopbackListeningSocket.open(backlog: 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        // Backlog 0 holds one connection; two more fill what the kernel keeps half-open.
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
            }
            fillers.append(filler)
        }
        usleep(100_000)
    }

    public func close() {
        for filler in fillers { Glibc.close(filler) }
        Glibc.close(descriptor)
    }
}
