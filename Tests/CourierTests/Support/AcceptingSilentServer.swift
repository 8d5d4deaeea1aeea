import CourierTestSupport
import Foundation

/// A server that accepts every connection and reads what the client sends, but never answers:
/// each request sent to it is connected and waits. One thread polls every socket, so a thousand
/// waiting connections cost no thousand threads. It counts the connections still open, which
/// fall as clients close theirs.
///
/// `@unchecked Sendable`: `openConnections` and `isStopped` are atomics-by-lock (`lock`); the
/// descriptors are touched only by the server's own thread after `init`.
final class AcceptingSilentServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var open = 0
    private var accepted = 0
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    init() throws {
        let (descriptor, port) = try LoopbackListeningSocket.open(backlog: 4096)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        listener = descriptor
        self.port = port
        Thread.detachNewThread { [self] in serve() }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/silent")! }

    /// Connections accepted and not yet closed by their client.
    var openConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return open
    }

    /// Connections accepted so far.
    var acceptedConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// Stops the thread and closes every socket.
    func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        if !wasStopped { done.wait() }
    }

    deinit { stop() }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func serve() {
        var descriptors = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !isStopped {
            guard poll(&descriptors, nfds_t(descriptors.count), 20) >= 0 || errno == EINTR else { break }
            var closed = Set<Int32>()
            for entry in descriptors.dropFirst() where entry.revents != 0 {
                // Read and drop the request; end of stream (or an error) is the client closing.
                if read(entry.fd, &buffer, buffer.count) <= 0 {
                    close(entry.fd)
                    closed.insert(entry.fd)
                }
            }
            var fresh: [Int32] = []
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { break }
                fresh.append(client)
            }
            if !closed.isEmpty { descriptors.removeAll { closed.contains($0.fd) } }
            descriptors += fresh.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            lock.lock()
            open = descriptors.count - 1
            accepted += fresh.count
            lock.unlock()
        }
        for entry in descriptors { close(entry.fd) }
        done.signal()
    }
}
