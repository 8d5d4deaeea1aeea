import Glibc

/// Every system call the server makes on a socket lives in this file.
///
/// Keeping the wire in one place means the rest of the server talks in terms of
/// "bytes on a connection", and fault routes added later (resets, half-closes,
/// stalls) have a single place that says what the wire can do.
enum Socket {
    /// The outcome of one `accept(2)` call.
    enum AcceptResult {
        /// A new connected socket.
        case accepted(Int32)
        /// A transient failure (signal, aborted handshake, fd exhaustion): try again.
        case retry(errno: Int32)
        /// The listener is shut down or unusable: stop accepting.
        case finished
    }

    /// Creates a TCP socket bound to 127.0.0.1 and listening.
    ///
    /// Binds loopback only, never 0.0.0.0: the server is for tests, and must not be
    /// reachable from other machines.
    /// - Returns: the listening descriptor and the port actually bound (for `port == 0`).
    static func listenOnLoopback(port: Int) throws -> (fd: Int32, port: Int) {
        guard (0...65_535).contains(port) else {
            throw TestServerError(operation: "bind (port \(port) out of range)", code: EINVAL)
        }
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestServerError(operation: "socket", code: errno) }
        do {
            // SO_REUSEADDR so a test suite can rebind a fixed port while old
            // connections from the previous server sit in TIME_WAIT.
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, name: "setsockopt(SO_REUSEADDR)")
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr = in_addr(s_addr: INADDR_LOOPBACK.bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw TestServerError(operation: "bind 127.0.0.1:\(port)", code: errno) }
            guard Glibc.listen(fd, SOMAXCONN) == 0 else { throw TestServerError(operation: "listen", code: errno) }
            return (fd, try boundPort(of: fd))
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// Blocks until a connection arrives or the listener is shut down.
    static func accept(_ listener: Int32) -> AcceptResult {
        // accept4(SOCK_CLOEXEC) is not exported by the Glibc module (it needs
        // _GNU_SOURCE), so set close-on-exec right after, keeping the descriptor out
        // of any process a test spawns.
        let fd = Glibc.accept(listener, nil, nil)
        if fd >= 0 {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return .accepted(fd)
        }
        let code = errno
        switch code {
        case EINTR, ECONNABORTED, EMFILE, ENFILE, ENOBUFS, ENOMEM, EPROTO, EPERM:
            return .retry(errno: code)
        default:
            // EINVAL after shutdown(2) on the listener is how stop() wakes us.
            return .finished
        }
    }

    /// Turns off Nagle's algorithm on an accepted socket.
    ///
    /// Responses are written in one `send`, but a streamed body's last segment would
    /// otherwise wait for the peer's delayed ACK (~40 ms on Linux).
    static func setNoDelay(_ fd: Int32) {
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "setsockopt(TCP_NODELAY)")
    }

    /// Reads whatever is available (at least one byte), blocking until then.
    /// - Returns: the number of bytes read; 0 means the peer finished sending (EOF).
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.recv(fd, buffer.baseAddress, buffer.count, 0)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw Connection.Failure.io(operation: "recv", code: errno)
        }
    }

    /// Writes all of `bytes`, blocking as needed.
    ///
    /// Uses `MSG_NOSIGNAL` because a peer that hangs up must surface as `EPIPE`, not a
    /// SIGPIPE that kills the whole test process (Linux has no `SO_NOSIGPIPE`).
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if count >= 0 {
                offset += count
            } else if errno != EINTR {
                throw Connection.Failure.io(operation: "send", code: errno)
            }
        }
    }

    /// Shuts down both directions, waking any thread blocked in `accept`, `recv` or
    /// `send` on this descriptor. Does not release the descriptor.
    static func shutdownBoth(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Shuts down our sending direction only: the peer sees EOF after the bytes
    /// already written, while we can still read (and discard) what it sends.
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Arranges for the next `close` to send a TCP RST instead of a FIN.
    static func setLingerZero(_ fd: Int32) {
        var value = linger(l_onoff: 1, l_linger: 0)
        _ = Glibc.setsockopt(fd, SOL_SOCKET, SO_LINGER, &value, socklen_t(MemoryLayout<linger>.size))
    }

    /// Releases the descriptor.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Waits up to `milliseconds` for the socket to become readable (data or EOF).
    /// - Returns: true if readable (or in error), false on timeout.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = Glibc.poll(&entry, 1, milliseconds)
        return ready != 0
    }

    /// Waits up to `milliseconds` for the socket to be hung up, without consuming or
    /// waiting on incoming data, which is what lets a pausing fault route wake promptly.
    ///
    /// Hung up means any of: the peer closed its sending side (FIN, `POLLRDHUP`), the
    /// peer reset the connection (`POLLERR`/`POLLHUP`), or both directions were shut
    /// down here by `stop()` (`POLLHUP`). Incoming data alone does not wake it, so a
    /// client that pipelines its next request is not mistaken for one that left.
    /// - Returns: true if hung up, false on timeout.
    static func waitForHangup(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: pollReadHangup, revents: 0)
        guard Glibc.poll(&entry, 1, milliseconds) > 0 else { return false }
        return entry.revents & (pollReadHangup | Int16(POLLHUP | POLLERR | POLLNVAL)) != 0
    }

    /// `POLLRDHUP` from `<sys/poll.h>`: the peer shut down its sending side. Spelled out
    /// because the Glibc module only exports it with `_GNU_SOURCE`; without it a client
    /// closing normally (FIN) would go unnoticed until the next write failed.
    private static let pollReadHangup = Int16(0x2000)

    private static func setOption(_ fd: Int32, _ level: Int32, _ option: Int32, _ value: Int32, name: String) throws {
        var value = value
        guard Glibc.setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw TestServerError(operation: name, code: errno)
        }
    }

    private static func boundPort(of fd: Int32) throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw TestServerError(operation: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
