/// Produces the response for one route.
///
/// A responder may do anything to the connection: send a normal response through
/// ``Exchange/respond(status:reason:headers:body:)``, stream with
/// ``Exchange/head(status:reason:headers:framing:)`` and raw writes, pause with
/// ``Connection/sleep(seconds:)``, or end things early with ``Connection/reset()``.
/// Fault routes that hold a connection wrap that work in
/// ``Exchange/watchingForClientClose(_:)`` so a client giving up is counted.
/// After it returns, the connection serves the next request if
/// ``Exchange/keepAlive`` is still true and the connection is open.
protocol Responder: Sendable {
    /// Writes the response for `exchange`.
    /// - Throws: anything; the connection is then closed without further response.
    func respond(to exchange: Exchange) throws
}
