import Foundation

/// One reachability probe: resolve, then a non-blocking TCP connect to each address in turn
/// until one succeeds or all fail or time out.
enum ReachabilityProbe {
    static func canConnect(host: String, port: Int, timeout: TimeInterval) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else { return false }
        defer { freeaddrinfo(results) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            if connect(to: address.pointee, timeout: timeout) { return true }
            entry = address.pointee.ai_next
        }
        return false
    }

    private static func connect(to address: addrinfo, timeout: TimeInterval) -> Bool {
        let descriptor = socket(
            address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue), address.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&poller, 1, Int32(timeout * 1000)) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == 0
    }
}
