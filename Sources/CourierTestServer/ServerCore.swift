import CourierThreadSanitizer
import Dispatch
import Foundation
import Synchronization

/// The engine behind ``TestServer``: the listener, the accept thread, one thread per
/// connection, and the shared state they report into.
///
/// Separate from `TestServer` so that the threads keep only this object alive: the
/// user's last reference to `TestServer` going away runs its `deinit` (and so
/// `stop()`) on the user's thread, never on a connection thread it would wait for.
final class ServerCore: Sendable {
    /// The listening socket.
    let listener: Int32
    /// The bound port.
    let port: Int
    /// All mutable shared state. `Mutex` is the one lock type in this module.
    private let state = Mutex(ServerState())
    /// Entered for the accept thread and every connection thread, so `stop()` can
    /// wait for them all to finish.
    private let threads = DispatchGroup()

    /// The credentials a request in absolute form (sent to this server as a proxy) must
    /// carry in `Proxy-Authorization`; nil when proxying needs none.
    let proxyCredentials: ProxyCredentials?

    /// Binds and listens; call ``start()`` to begin accepting.
    init(port: Int, proxyCredentials: ProxyCredentials? = nil) throws {
        (listener, self.port) = try Socket.listenOnLoopback(port: port)
        self.proxyCredentials = proxyCredentials
    }

    /// Starts the accept thread.
    func start() {
        threads.enter()
        let thread = Thread { [self] in
            acceptLoop()
            threads.leave()
        }
        thread.name = "CourierTestServer accept :\(port)"
        thread.start()
    }

    // MARK: Stopping

    /// True once ``stop()`` has begun.
    var isStopping: Bool { state.withAnnotatedLock { $0.isStopping } }

    /// Stops accepting, shuts down every open connection, and waits for all threads.
    ///
    /// Shutting the sockets down (rather than closing them) wakes threads blocked in
    /// `accept`, `recv` or `send` without freeing descriptor numbers under their feet;
    /// each thread then closes its own descriptor on the way out. Idempotent.
    func stop() {
        state.withAnnotatedLock { state in
            guard !state.isStopping else { return }
            state.isStopping = true
            if state.listenerOpen { Socket.shutdownBoth(listener) }
            for fd in state.openConnections { Socket.shutdownBoth(fd) }
        }
        // Bounded so a misbehaving responder can never hang a test suite; every
        // blocking call in the server is woken by the shutdowns above.
        _ = threads.wait(timeout: .now() + 10)
    }

    /// Closes a connection's descriptor, optionally with a TCP RST.
    ///
    /// Done under the lock together with forgetting the descriptor, so `stop()` never
    /// shuts down a number the kernel has already handed to a new connection.
    func closeConnection(fd: Int32, reset: Bool) {
        state.withAnnotatedLock { state in
            state.openConnections.remove(fd)
            if reset { Socket.setLingerZero(fd) }
            Socket.close(fd)
        }
    }

    // MARK: Records

    /// TCP connections accepted so far.
    var connectionsAccepted: Int { state.withAnnotatedLock { $0.connectionsAccepted } }
    /// Request heads parsed so far.
    var requestsReceived: Int { state.withAnnotatedLock { $0.requestsReceived } }
    /// Complete requests received, in order.
    var recordedRequests: [RecordedRequest] { state.withAnnotatedLock { $0.records } }

    /// Forgets recorded requests and per-key hits, and zeroes every counter. Threads in
    /// ``waitForClientClose(count:timeout:)`` keep waiting for their count.
    func resetRecords() {
        state.withAnnotatedLock { state in
            state.records.removeAll()
            state.connectionsAccepted = 0
            state.requestsReceived = 0
            state.connectionsClosedByClient = 0
            state.hitsByKey.removeAll()
            state.digest = DigestNonceBook()
        }
    }

    /// Counts a parsed request head and/or records a complete request, in one lock
    /// acquisition.
    func noteRequest(headParsed: Bool, complete request: RecordedRequest?) {
        state.withAnnotatedLock { state in
            if headParsed { state.requestsReceived += 1 }
            if let request { state.records.append(request) }
        }
    }

    // MARK: Fault-route records

    /// Connections the client closed or reset while a fault route held or wrote a response.
    var connectionsClosedByClient: Int { state.withAnnotatedLock { $0.connectionsClosedByClient } }

    /// Counts one connection closed by the client and wakes the waiters whose count
    /// that reaches. Called at most once per connection, because the failure that
    /// reports the close also ends the connection.
    func noteClientClosed() {
        let woken: [DispatchSemaphore] = state.withAnnotatedLock { state in
            state.connectionsClosedByClient += 1
            let reached = state.closeWaiters.filter { $0.value.count <= state.connectionsClosedByClient }
            for ticket in reached.keys { state.closeWaiters.removeValue(forKey: ticket) }
            return reached.values.map(\.semaphore)
        }
        for semaphore in woken { semaphore.signal() }
    }

    /// Blocks until ``connectionsClosedByClient`` reaches `count` or `timeout` passes.
    ///
    /// Sleeps on a semaphore that ``noteClientClosed()`` signals, rather than polling.
    /// - Returns: whether the count was reached.
    func waitForClientClose(count: Int, timeout: TimeInterval) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let ticket: Int? = state.withAnnotatedLock { state in
            guard state.connectionsClosedByClient < count else { return nil }
            defer { state.nextWaiterTicket += 1 }
            state.closeWaiters[state.nextWaiterTicket] = (count, semaphore)
            return state.nextWaiterTicket
        }
        guard let ticket else { return true }
        if semaphore.wait(timeout: .now() + min(max(0, timeout), 1e9)) == .success { return true }
        // Timed out, but the count may have been reached between the timeout and now:
        // if our entry is gone, noteClientClosed() removed it for exactly that reason.
        return state.withAnnotatedLock { $0.closeWaiters.removeValue(forKey: ticket) == nil }
    }

    /// Counts a request for `key` on the stall-times or status-times route.
    /// - Returns: the request's 1-based attempt number for that key.
    func nextHit(forKey key: String) -> Int {
        state.withAnnotatedLock { state in
            let hit = state.hitsByKey[key, default: 0] + 1
            state.hitsByKey[key] = hit
            return hit
        }
    }

    /// Requests seen for `key` by the stall-times and status-times routes.
    func hits(forKey key: String) -> Int { state.withAnnotatedLock { $0.hitsByKey[key] ?? 0 } }

    /// Runs `body` on the Digest nonce book under the server's lock; `body` must not block.
    func withDigestNonces<Result: Sendable>(_ body: (inout DigestNonceBook) -> Result) -> Result {
        state.withAnnotatedLock { body(&$0.digest) }
    }

    /// Runs `body` on the S3 service's state under the server's lock; `body` must not block.
    func withS3<Result: Sendable, Failure: Error>(
        _ body: (inout S3Store) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try state.withAnnotatedLock { state throws(Failure) in try body(&state.s3) }
    }

    // MARK: Accepting

    private func acceptLoop() {
        acceptLoop: while true {
            switch Socket.accept(listener) {
            case .accepted(let fd):
                let id: Int? = state.withAnnotatedLock { state in
                    guard !state.isStopping else { return nil }
                    state.connectionsAccepted += 1
                    state.openConnections.insert(fd)
                    defer { state.nextConnectionID += 1 }
                    return state.nextConnectionID
                }
                guard let id else {
                    Socket.close(fd)
                    break acceptLoop
                }
                startConnectionThread(fd: fd, id: id)
            case .retry(let code):
                if isStopping { break acceptLoop }
                // Out of descriptors: back off instead of spinning on the error.
                if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM { usleep(10_000) }
            case .finished:
                break acceptLoop
            }
        }
        state.withAnnotatedLock { state in
            state.listenerOpen = false
            Socket.close(listener)
        }
    }

    private func startConnectionThread(fd: Int32, id: Int) {
        threads.enter()
        let thread = Thread { [self] in
            serve(Connection(fd: fd, id: id, core: self))
            threads.leave()
        }
        thread.name = "CourierTestServer connection \(id)"
        thread.start()
    }
}
