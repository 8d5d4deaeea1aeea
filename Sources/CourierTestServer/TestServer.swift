import Foundation

/// A small, real HTTP/1.1 server on 127.0.0.1 for testing HTTP clients.
///
/// It starts serving as soon as it is created and serves the endpoints in ``Route``
/// (echo, status codes, byte streams, chunked bodies, charsets, response headers, and
/// fault routes that stall, trickle, delay, drop or reset). It records every request
/// it receives so a test can check what a client sent, and counts clients that give
/// up on a fault route (``connectionsClosedByClient``).
///
/// ```swift
/// let server = try TestServer()
/// defer { server.stop() }
/// // fetch server.url(.status(404)) with the client under test, then:
/// XCTAssertEqual(server.recordedRequests.last?.method, "GET")
/// ```
///
/// Supports keep-alive (HTTP/1.1 by default, HTTP/1.0 with `Connection: keep-alive`),
/// request bodies with `Content-Length` or `Transfer-Encoding: chunked`, and
/// `Expect: 100-continue`. Each connection is served by its own thread.
public final class TestServer: Sendable {
    /// The port the server is bound to on 127.0.0.1 (the ephemeral one chosen by the
    /// system when created with port 0).
    public let port: Int

    let core: ServerCore

    /// Binds 127.0.0.1 (never any other interface) and starts accepting connections.
    ///
    /// The server is also an HTTP proxy for itself: a request whose target is in absolute
    /// form (`GET http://127.0.0.1:<port>/echo HTTP/1.1`, as clients send to a proxy) for
    /// host `127.0.0.1` or `localhost` (any port) is served as that local route, with
    /// `X-Courier-Proxied: 1` added to the response; any other host gets `502 Bad Gateway`
    /// and the server never connects anywhere.
    ///
    /// - Parameters:
    ///   - port: the port to listen on; 0 (the default) lets the system pick a
    ///     free one, which ``port`` then reports.
    ///   - proxyCredentials: when given, a request in absolute form must carry them in
    ///     `Proxy-Authorization` (in their scheme); without them, or with wrong ones, it gets
    ///     `407` with a `Proxy-Authenticate` challenge (realm `Courier proxy`), counted in
    ///     ``proxyChallengesSent``. Requests in origin form never need them.
    /// - Throws: ``TestServerError`` if the socket cannot be bound, e.g. the port is in use.
    public init(port: Int = 0, proxyCredentials: ProxyCredentials? = nil) throws {
        core = try ServerCore(port: port, proxyCredentials: proxyCredentials)
        self.port = core.port
        core.start()
    }

    deinit {
        core.stop()
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// The full URL of a route, e.g. `http://127.0.0.1:54321/status/404`.
    public func url(_ route: Route) -> URL {
        url(path: route.path)
    }

    /// The URL of an arbitrary path and query on this server, e.g. to request a path
    /// no route serves.
    /// - Parameter path: a percent-encoded path starting with `/`, optionally with a query.
    public func url(path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Stops the server: closes the listener and every open connection, and waits for
    /// the server's threads to finish. Safe to call more than once; `deinit` calls it.
    ///
    /// Clients with requests in flight see their connection closed or reset.
    public func stop() {
        core.stop()
    }

    /// TCP connections accepted since the server started or ``resetRecords()`` was last called.
    public var connectionsAccepted: Int { core.connectionsAccepted }

    /// Complete request heads parsed since the server started or ``resetRecords()`` was
    /// last called. Counted as soon as the head is parsed, so it includes requests
    /// whose body never fully arrived (and which are therefore not in ``recordedRequests``).
    public var requestsReceived: Int { core.requestsReceived }

    /// Every complete request received (head and body), in the order they arrived.
    public var recordedRequests: [RecordedRequest] { core.recordedRequests }

    /// Clears ``recordedRequests`` and the per-key ``hits(forKey:)``, and zeroes
    /// ``connectionsAccepted``, ``requestsReceived`` and ``connectionsClosedByClient``.
    /// Connection IDs keep counting up, so they stay unique.
    public func resetRecords() {
        core.resetRecords()
    }

    // MARK: Fault routes

    /// How many requests the ``Route/stallTimes(key:count:)`` and
    /// ``Route/statusTimes(key:count:status:)`` routes have seen for `key` since the
    /// server started or ``resetRecords()`` was last called; 0 for an unseen key. Both
    /// routes count in the same per-key table.
    public func hits(forKey key: String) -> Int {
        core.hits(forKey: key)
    }

    /// Connections the client closed (FIN) or reset (RST) while the server was holding
    /// or writing a response on a fault route, since the server started or
    /// ``resetRecords()`` was last called. Each connection counts at most once.
    ///
    /// Counted: a close or reset noticed while ``Route/stall``,
    /// ``Route/trickle(_:intervalMilliseconds:)``, ``Route/delay(milliseconds:)``, or a
    /// stalling ``Route/stallTimes(key:count:)`` attempt holds or writes its response.
    /// A client that only half-closes (shuts down its sending side) counts as closed.
    ///
    /// Not counted: closes while the connection is idle between requests, closes
    /// during any other route, connections ended by ``stop()``, and a close that lands
    /// after the fault route has finished its response.
    public var connectionsClosedByClient: Int { core.connectionsClosedByClient }

    /// Blocks until ``connectionsClosedByClient`` is at least `count` or `timeout`
    /// seconds pass, without polling.
    ///
    /// A fault route notices a client closing within milliseconds, so a short timeout
    /// (e.g. one second) is plenty.
    /// - Returns: true if the count was reached, false on timeout.
    public func waitForClientClose(count: Int, timeout: TimeInterval) -> Bool {
        core.waitForClientClose(count: count, timeout: timeout)
    }
}
