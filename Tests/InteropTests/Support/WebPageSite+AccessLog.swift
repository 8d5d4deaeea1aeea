import Foundation

extension WebPageSite: NginxAccessLogged {
    /// The access log once every request whose answer a client has already received is in it
    /// (a request still being answered, a slow transfer say, may not be).
    ///
    /// nginx here is one process with one event loop, and it logs a request as it finishes
    /// sending the answer, before it looks at another connection: so once a request sent now,
    /// on a new connection, is in the log, everything answered before it is too. That request
    /// (`/log-barrier?ID`) is made with a plain socket rather than Courier, so that it touches
    /// none of the library's shared state (cookies, connection cache, bandwidth) under test.
    /// - Throws: when the barrier request fails or its line does not appear within 5 seconds.
    func settledAccessLog() throws -> [AccessLogEntry] {
        let uri = "/log-barrier?\(UUID().uuidString)"
        try Self.getOverPlainSocket(port: pagePort, uri: uri)
        let deadline = Date(timeIntervalSinceNow: 5)
        while true {
            let entries = accessLog()
            if let barrier = entries.lastIndex(where: { $0.uri == uri }) {
                return Array(entries[..<barrier])
            }
            guard Date() < deadline else { throw LogBarrierMissing(uri: uri) }
            usleep(5_000)
        }
    }

    /// The barrier request was answered but never logged: nginx is not logging as configured.
    struct LogBarrierMissing: Error, CustomStringConvertible {
        var uri: String
        var description: String { "web-page site: \(uri) was answered but not in the access log after 5 s" }
    }

    /// Sends `GET uri HTTP/1.0` to 127.0.0.1:`port` and reads the answer to its end (nginx closes
    /// an HTTP/1.0 connection after the answer).
    private static func getOverPlainSocket(port: Int, uri: String) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw InteropServersError.system("socket()", errno: errno) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw InteropServersError.system("connect(127.0.0.1:\(port))", errno: errno) }
        let request = Array("GET \(uri) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == request.count else { throw InteropServersError.system("send(\(uri))", errno: errno) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 { return }
            guard count > 0 else { throw InteropServersError.system("recv(\(uri))", errno: errno) }
        }
    }
}
